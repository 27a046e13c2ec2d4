// Syntax colours for the code view. The tokens come from tlparse's highlighter (the same one
// the HTML report uses), run once over the whole text, so strings and comments spanning lines
// are coloured right; each block then just paints the tokens that cross it.
#pragma once

#include <QSyntaxHighlighter>
#include <QTextCharFormat>
#include <vector>

namespace gui {

class CodeHighlighter : public QSyntaxHighlighter {
  Q_OBJECT
public:
  explicit CodeHighlighter(QTextDocument* document);

  // "python", "cpp", "json" or anything else for plain text. Re-tokenizes the document; call
  // after the document's text is set.
  void setLanguage(const QString& language);
  int tokenCount() const { return int(tokens_.size()); }

protected:
  void highlightBlock(const QString& text) override;

private:
  struct Span {
    int start; // UTF-16 position in the document
    int length;
    int kind;
  };
  void tokenize();

  QString language_;
  std::vector<Span> tokens_;
  std::vector<QTextCharFormat> formats_;
};

// Picks a language for an artifact from its name and the start of its text.
QString languageForArtifact(const QString& name, const QString& text);

} // namespace gui
