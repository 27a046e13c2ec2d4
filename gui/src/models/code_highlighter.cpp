// CodeHighlighter: maps tlparse::highlight token byte offsets to UTF-16 positions once, then
// colours block by block with a binary search for the first token of each block.
#include "gui/code_highlighter.h"

#include "tlparse/highlight/highlight.h"

#include <QTextDocument>
#include <algorithm>

namespace gui {

namespace {

QTextCharFormat makeFormat(const QColor& color, bool bold = false, bool italic = false) {
  QTextCharFormat f;
  f.setForeground(color);
  if (bold) {
    f.setFontWeight(QFont::Bold);
  }
  f.setFontItalic(italic);
  return f;
}

} // namespace

CodeHighlighter::CodeHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {
  // Indexed by tlparse::highlight::TokenKind, in its declaration order.
  formats_ = {
      makeFormat(QColor(0x00, 0x00, 0xa0), true),        // Keyword
      makeFormat(QColor(0x00, 0x70, 0x80)),              // Builtin
      makeFormat(QColor(0x80, 0x00, 0x80), true),        // Constant
      makeFormat(QColor(0x79, 0x5e, 0x26)),              // Function
      makeFormat(QColor(0x0a, 0x7a, 0x0a)),              // String
      makeFormat(QColor(0x09, 0x86, 0x58)),              // Number
      makeFormat(QColor(0x70, 0x70, 0x70), false, true), // Comment
      makeFormat(QColor(0xaa, 0x55, 0x00)),              // Decorator
      makeFormat(QColor(0x80, 0x40, 0x00)),              // Preprocessor
      makeFormat(QColor(0x50, 0x50, 0x50)),              // Operator
      makeFormat(QColor(0x00, 0x45, 0x8a), true),        // Key
  };
}

void CodeHighlighter::setLanguage(const QString& language) {
  language_ = language;
  tokenize();
  rehighlight();
}

void CodeHighlighter::tokenize() {
  tokens_.clear();
  namespace hl = tlparse::highlight;
  hl::Language lang = hl::Language::PlainText;
  if (language_ == QLatin1String("python")) {
    lang = hl::Language::Python;
  } else if (language_ == QLatin1String("cpp")) {
    lang = hl::Language::Cpp;
  } else if (language_ == QLatin1String("json")) {
    lang = hl::Language::Json;
  }
  if (lang == hl::Language::PlainText || document() == nullptr) {
    return;
  }
  const QString text = document()->toPlainText();
  const QByteArray utf8 = text.toUtf8();
  const auto tokens = hl::tokenize(std::string_view(utf8.constData(), size_t(utf8.size())), lang);
  // Walk bytes and UTF-16 units together; tokens are sorted, so one pass maps them all.
  qsizetype byte = 0;
  int unit = 0;
  auto advanceTo = [&](qsizetype target) {
    while (byte < target && byte < utf8.size()) {
      const auto c = static_cast<unsigned char>(utf8[byte]);
      const int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : 4;
      byte += len;
      unit += len == 4 ? 2 : 1;
    }
  };
  tokens_.reserve(tokens.size());
  for (const auto& t : tokens) {
    advanceTo(qsizetype(t.offset));
    const int start = unit;
    advanceTo(qsizetype(t.offset) + qsizetype(t.length));
    tokens_.push_back({start, unit - start, int(t.kind)});
  }
  // A QTextDocument's positions count one separator per block, as toPlainText's "\n" does.
}

void CodeHighlighter::highlightBlock(const QString& text) {
  if (tokens_.empty()) {
    return;
  }
  const int blockStart = currentBlock().position();
  const int blockEnd = blockStart + int(text.size());
  auto it = std::lower_bound(tokens_.begin(), tokens_.end(), blockStart,
                             [](const Span& s, int pos) { return s.start + s.length <= pos; });
  for (; it != tokens_.end() && it->start < blockEnd; ++it) {
    const int from = std::max(it->start, blockStart);
    const int to = std::min(it->start + it->length, blockEnd);
    if (to > from && it->kind >= 0 && it->kind < int(formats_.size())) {
      setFormat(from - blockStart, to - from, formats_[size_t(it->kind)]);
    }
  }
}

QString languageForArtifact(const QString& name, const QString& text) {
  const QString head = text.left(256).trimmed();
  if (head.startsWith(QLatin1Char('{')) || head.startsWith(QLatin1Char('['))) {
    return QStringLiteral("json");
  }
  if (name.contains(QLatin1String("guards")) || name.contains(QLatin1String("reason"))) {
    return QStringLiteral("text");
  }
  if (name.endsWith(QLatin1String(".cpp")) || name.endsWith(QLatin1String(".cu")) ||
      name.endsWith(QLatin1String(".h"))) {
    return QStringLiteral("cpp");
  }
  if (name.contains(QLatin1String("graph")) || name.contains(QLatin1String("output_code")) ||
      name.endsWith(QLatin1String(".py")) || name.contains(QLatin1String("runnable"))) {
    return QStringLiteral("python");
  }
  return QStringLiteral("text");
}

} // namespace gui
