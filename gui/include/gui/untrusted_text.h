// Text from an index (docs/SECURITY.md, "The index is untrusted input") shown where Qt guesses
// whether a string is rich text: tooltips and labels render "<img src=...>" or "<a href=...>" as
// markup when Qt::mightBeRichText() says so. Tooltips of the models go through plainToolTip(), and
// labels that show index text are set to Qt::PlainText.
#pragma once

#include <QString>

namespace gui {

// `text` as a tooltip that Qt shows literally, line breaks kept.
QString plainToolTip(const QString& text);

} // namespace gui
