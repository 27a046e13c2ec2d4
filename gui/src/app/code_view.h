// The read-only code view: line numbers, syntax colours (CodeHighlighter), and a find bar
// (Ctrl+F, Enter / Shift+Enter, F3 / Shift+F3). Used for every artifact and both diff panes.
#pragma once

#include <QPlainTextEdit>
#include <QWidget>

class QLineEdit;
class QLabel;

namespace gui {

class CodeHighlighter;

class CodeEditor : public QPlainTextEdit {
  Q_OBJECT
public:
  explicit CodeEditor(QWidget* parent = nullptr);
  int lineNumberAreaWidth() const;
  void paintLineNumbers(QPaintEvent* event);
  // Per-line background colours (for diffs); index = 0-based line.
  void setLineColors(const QList<QPair<int, QColor>>& colors);

protected:
  void resizeEvent(QResizeEvent* event) override;

private:
  QWidget* lineNumbers_;
};

class CodeView : public QWidget {
  Q_OBJECT
public:
  explicit CodeView(QWidget* parent = nullptr);

  void setText(const QString& text, const QString& language);
  QString text() const;
  // Moves the cursor to a 1-based line and centres it.
  void goToLine(int line);
  int currentLine() const;
  CodeEditor* editor() const { return editor_; }
  CodeHighlighter* highlighter() const { return highlighter_; }

  // Finds `needle` after (or before) the cursor, wrapping; returns whether it was found.
  bool find(const QString& needle, bool backward = false);
  void showFindBar();

private:
  void updateFindStatus(bool found);

  CodeEditor* editor_;
  CodeHighlighter* highlighter_;
  QWidget* findBar_;
  QLineEdit* findEdit_;
  QLabel* findStatus_;
};

} // namespace gui
