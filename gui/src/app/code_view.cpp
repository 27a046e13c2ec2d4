// CodeView: a QPlainTextEdit (which lays out only visible blocks, so multi-megabyte output
// code scrolls smoothly) with a painted line-number gutter and a find bar.
#include "code_view.h"

#include "gui/code_highlighter.h"

#include <QAction>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QTextBlock>
#include <QToolButton>
#include <QVBoxLayout>

namespace gui {

namespace {

class LineNumberArea : public QWidget {
public:
  explicit LineNumberArea(CodeEditor* editor) : QWidget(editor), editor_(editor) {}
  QSize sizeHint() const override { return {editor_->lineNumberAreaWidth(), 0}; }

protected:
  void paintEvent(QPaintEvent* event) override { editor_->paintLineNumbers(event); }

private:
  CodeEditor* editor_;
};

} // namespace

CodeEditor::CodeEditor(QWidget* parent) : QPlainTextEdit(parent) {
  setReadOnly(true);
  setTextInteractionFlags(Qt::TextSelectableByKeyboard | Qt::TextSelectableByMouse);
  setLineWrapMode(QPlainTextEdit::NoWrap);
  setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  lineNumbers_ = new LineNumberArea(this);
  connect(this, &QPlainTextEdit::blockCountChanged, this,
          [this] { setViewportMargins(lineNumberAreaWidth(), 0, 0, 0); });
  connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& rect, int dy) {
    if (dy != 0) {
      lineNumbers_->scroll(0, dy);
    } else {
      lineNumbers_->update(0, rect.y(), lineNumbers_->width(), rect.height());
    }
  });
  setViewportMargins(lineNumberAreaWidth(), 0, 0, 0);
}

int CodeEditor::lineNumberAreaWidth() const {
  int digits = 1;
  for (int max = std::max(1, blockCount()); max >= 10; max /= 10) {
    ++digits;
  }
  return 8 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * digits;
}

void CodeEditor::resizeEvent(QResizeEvent* event) {
  QPlainTextEdit::resizeEvent(event);
  const QRect cr = contentsRect();
  lineNumbers_->setGeometry(QRect(cr.left(), cr.top(), lineNumberAreaWidth(), cr.height()));
}

void CodeEditor::paintLineNumbers(QPaintEvent* event) {
  QPainter painter(lineNumbers_);
  painter.fillRect(event->rect(), palette().color(QPalette::AlternateBase));
  painter.setPen(palette().color(QPalette::PlaceholderText));
  QTextBlock block = firstVisibleBlock();
  int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
  const int height = fontMetrics().height();
  while (block.isValid() && top <= event->rect().bottom()) {
    if (block.isVisible()) {
      painter.drawText(0, top, lineNumbers_->width() - 4, height, Qt::AlignRight,
                       QString::number(block.blockNumber() + 1));
    }
    top += qRound(blockBoundingRect(block).height());
    block = block.next();
  }
}

void CodeEditor::setLineColors(const QList<QPair<int, QColor>>& colors) {
  QList<QTextEdit::ExtraSelection> selections;
  selections.reserve(colors.size());
  for (const auto& [line, color] : colors) {
    QTextEdit::ExtraSelection sel;
    sel.format.setBackground(color);
    sel.format.setProperty(QTextFormat::FullWidthSelection, true);
    sel.cursor = QTextCursor(document()->findBlockByNumber(line));
    selections.append(sel);
  }
  setExtraSelections(selections);
}

CodeView::CodeView(QWidget* parent) : QWidget(parent) {
  editor_ = new CodeEditor(this);
  highlighter_ = new CodeHighlighter(editor_->document());
  findBar_ = new QWidget(this);
  findEdit_ = new QLineEdit(findBar_);
  findEdit_->setPlaceholderText(tr("Find (Enter: next, Shift+Enter: previous, Esc: close)"));
  findEdit_->setObjectName(QStringLiteral("findEdit"));
  findStatus_ = new QLabel(findBar_);
  auto* close = new QToolButton(findBar_);
  close->setText(QStringLiteral("×"));
  close->setAutoRaise(true);
  auto* barLayout = new QHBoxLayout(findBar_);
  barLayout->setContentsMargins(2, 2, 2, 2);
  barLayout->addWidget(findEdit_, 1);
  barLayout->addWidget(findStatus_);
  barLayout->addWidget(close);
  findBar_->hide();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(editor_, 1);
  layout->addWidget(findBar_);

  connect(findEdit_, &QLineEdit::returnPressed, this, [this] {
    const bool backward = QGuiApplication::keyboardModifiers() & Qt::ShiftModifier;
    find(findEdit_->text(), backward);
  });
  connect(findEdit_, &QLineEdit::textEdited, this, [this](const QString& t) {
    // Search from the start of the current match so typing refines it in place.
    QTextCursor c = editor_->textCursor();
    c.setPosition(c.selectionStart());
    editor_->setTextCursor(c);
    find(t);
  });
  connect(close, &QToolButton::clicked, this, [this] {
    findBar_->hide();
    editor_->setFocus();
  });

  auto* findAction = new QAction(tr("Find"), this);
  findAction->setShortcut(QKeySequence::Find);
  findAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  connect(findAction, &QAction::triggered, this, &CodeView::showFindBar);
  addAction(findAction);
  auto* next = new QAction(tr("Find next"), this);
  next->setShortcut(QKeySequence::FindNext);
  next->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  connect(next, &QAction::triggered, this, [this] { find(findEdit_->text()); });
  addAction(next);
  auto* previous = new QAction(tr("Find previous"), this);
  previous->setShortcut(QKeySequence::FindPrevious);
  previous->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  connect(previous, &QAction::triggered, this, [this] { find(findEdit_->text(), true); });
  addAction(previous);
  auto* escape = new QAction(this);
  escape->setShortcut(Qt::Key_Escape);
  escape->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  connect(escape, &QAction::triggered, this, [this] {
    findBar_->hide();
    editor_->setFocus();
  });
  addAction(escape);
}

void CodeView::setText(const QString& text, const QString& language) {
  editor_->setPlainText(text);
  highlighter_->setLanguage(language);
  editor_->setLineColors({});
}

QString CodeView::text() const {
  return editor_->toPlainText();
}

void CodeView::goToLine(int line) {
  const QTextBlock block = editor_->document()->findBlockByNumber(std::max(0, line - 1));
  if (!block.isValid()) {
    return;
  }
  QTextCursor c(block);
  editor_->setTextCursor(c);
  editor_->centerCursor();
  QTextEdit::ExtraSelection sel;
  sel.format.setBackground(QColor(0xff, 0xf5, 0x9d));
  sel.format.setProperty(QTextFormat::FullWidthSelection, true);
  sel.cursor = c;
  editor_->setExtraSelections({sel});
}

int CodeView::currentLine() const {
  return editor_->textCursor().blockNumber() + 1;
}

bool CodeView::find(const QString& needle, bool backward) {
  if (needle.isEmpty()) {
    updateFindStatus(true);
    return false;
  }
  QTextDocument::FindFlags flags;
  if (backward) {
    flags |= QTextDocument::FindBackward;
  }
  bool found = editor_->find(needle, flags);
  if (!found) {
    // Wrap around once.
    QTextCursor c = editor_->textCursor();
    c.movePosition(backward ? QTextCursor::End : QTextCursor::Start);
    editor_->setTextCursor(c);
    found = editor_->find(needle, flags);
  }
  updateFindStatus(found);
  return found;
}

void CodeView::showFindBar() {
  findBar_->show();
  const QString selected = editor_->textCursor().selectedText();
  if (!selected.isEmpty() && !selected.contains(QChar::ParagraphSeparator)) {
    findEdit_->setText(selected);
  }
  findEdit_->setFocus();
  findEdit_->selectAll();
}

void CodeView::updateFindStatus(bool found) {
  findStatus_->setText(found ? QString() : tr("not found"));
}

} // namespace gui
