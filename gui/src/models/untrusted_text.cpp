// See untrusted_text.h.
#include "gui/untrusted_text.h"

#include <QTextDocument>

namespace gui {

QString plainToolTip(const QString& text) {
  if (text.isEmpty()) {
    return text; // an empty tooltip shows nothing
  }
  // Escaped and wrapped as rich text, so that Qt never interprets the log's own markup.
  return Qt::convertFromPlainText(text, Qt::WhiteSpacePre);
}

} // namespace gui
