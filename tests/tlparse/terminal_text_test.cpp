// The terminal escaping of everything tlparse prints (tlparse/text/terminal_text.h).
#include "tlparse/text/terminal_text.h"

#include <catch2/catch.hpp>

using tlparse::text::terminal_safe;
using tlparse::text::terminal_safe_lines;

TEST_CASE("terminal text: control bytes, C1 controls, bidi overrides and bad UTF-8 are escaped",
          "[tlparse][terminal]") {
  CHECK(terminal_safe("\x1b]0;pwned\x07") == "\\x1b]0;pwned\\x07");
  CHECK(terminal_safe("a\rb\tc\nd") == "a\\x0db\\x09c\\x0ad");
  CHECK(terminal_safe(std::string("nul\0x", 5)) == "nul\\x00x");
  CHECK(terminal_safe("\x7f") == "\\x7f");
  CHECK(terminal_safe("\xc2\x9b"
                      "31m") == "\\u{9b}31m"); // CSI as a C1 control
  CHECK(terminal_safe("\xe2\x80\xae"
                      "evil") == "\\u{202e}evil");
  CHECK(terminal_safe("\xff\xfe") == "\\xff\\xfe");
  CHECK(terminal_safe("\xed\xa0\x80") == "\\xed\\xa0\\x80"); // a UTF-16 surrogate
  CHECK(terminal_safe("\xc0\xaf") == "\\xc0\\xaf");          // an overlong '/'
  CHECK(terminal_safe("\xe2\x82") == "\\xe2\\x82");          // cut inside a character
}

TEST_CASE("terminal text: printable text and valid UTF-8 pass unchanged, and twice is once",
          "[tlparse][terminal]") {
  const std::string plain = "Stats { ok: 16 } caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x94\xa5 a\\b";
  CHECK(terminal_safe(plain) == plain);
  for (const std::string& s :
       {std::string("\x1b[31m\xff\xe2\x80\xae\n"), std::string("\\x1b"), std::string("")}) {
    CHECK(terminal_safe(terminal_safe(s)) == terminal_safe(s));
  }
  CHECK(terminal_safe_lines("one\ntwo\x1b") == "one\ntwo\\x1b");
}
