// The syntax highlighter: token kinds per language, embedded kernels, escaping, and that token
// spans always tile the text in order (the GUI relies on that).
#include "tlparse/highlight/highlight.h"
#include "tlparse/highlight/html.h"

#include <catch2/catch.hpp>
#include <random>
#include <string>

using namespace tlparse::highlight;

namespace {

// "kind:text" for each token, to keep expectations readable.
std::vector<std::string> describe(std::string_view text, Language lang) {
  std::vector<std::string> out;
  for (const Token& t : tokenize(text, lang)) {
    out.push_back(std::string(css_class(t.kind)) + ":" +
                  std::string(text.substr(t.offset, t.length)));
  }
  return out;
}

bool well_formed(std::string_view text, const std::vector<Token>& tokens) {
  std::size_t end = 0;
  for (const Token& t : tokens) {
    if (t.length == 0 || t.offset < end || t.offset + t.length > text.size()) {
      return false;
    }
    end = t.offset + t.length;
  }
  return true;
}

} // namespace

TEST_CASE("python tokenizer marks keywords, names, strings, numbers and comments") {
  const auto d =
      describe("def forward(self, x):  # hi\n    return x * 2.5e-3 + f'a{b}'\n", Language::Python);
  const std::vector<std::string> expected = {"hl-kw:def",     "hl-fn:forward", "hl-bi:self",
                                             "hl-com:# hi",   "hl-kw:return",  "hl-op:*",
                                             "hl-num:2.5e-3", "hl-op:+",       "hl-str:f'a{b}'"};
  CHECK(d == expected);
}

TEST_CASE("python tokenizer handles FX graph code with annotated strings and dotted ops") {
  const std::string code =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, L_x_: \"f32[8, 16][16, 1]cpu\"):\n"
      "        mm: \"f32[8, 8]\" = torch.ops.aten.mm.default(l_x_, None);  l_x_ = None\n";
  const auto d = describe(code, Language::Python);
  CHECK(std::find(d.begin(), d.end(), "hl-fn:GraphModule") != d.end());
  CHECK(std::find(d.begin(), d.end(), "hl-str:\"f32[8, 16][16, 1]cpu\"") != d.end());
  CHECK(std::find(d.begin(), d.end(), "hl-fn:default") != d.end());
  CHECK(std::find(d.begin(), d.end(), "hl-const:None") != d.end());
}

TEST_CASE("kernels embedded in inductor output code are tokenized in their own language") {
  const std::string code = "cpp_fused_0 = async_compile.cpp_pybinding(['float*'], '''\n"
                           "#include <cmath>\n"
                           "extern \"C\" void kernel(float* out) { out[0] = 1.0f; }\n"
                           "''')\n"
                           "triton_poi = async_compile.triton('triton_poi', '''\n"
                           "import triton\n"
                           "@triton.jit\n"
                           "def triton_poi(in_ptr0, xnumel):\n"
                           "    pass\n"
                           "''', device_str='cuda')\n";
  const auto tokens = tokenize(code, Language::Python);
  CHECK(well_formed(code, tokens));
  const auto d = describe(code, Language::Python);
  CHECK(std::find(d.begin(), d.end(), "hl-pp:#include <cmath>") != d.end());
  CHECK(std::find(d.begin(), d.end(), "hl-bi:float") != d.end());
  CHECK(std::find(d.begin(), d.end(), "hl-dec:@triton.jit") != d.end());
  CHECK(std::find(d.begin(), d.end(), "hl-fn:triton_poi") != d.end());
  CHECK(std::find(d.begin(), d.end(), "hl-str:'''") != d.end());
}

TEST_CASE("c++ tokenizer covers preprocessor, comments, raw strings, CUDA and separators") {
  const std::string code = "#include <cuda.h>\n"
                           "__global__ void k(const float* __restrict__ p) {\n"
                           "  /* block */ int n = 1'000; // line\n"
                           "  auto s = R\"x(a \"quoted\" b)x\"; char c = '\\'';\n"
                           "}\n";
  const auto d = describe(code, Language::Cpp);
  const std::vector<std::string> expected = {"hl-pp:#include <cuda.h>",
                                             "hl-kw:__global__",
                                             "hl-bi:void",
                                             "hl-fn:k",
                                             "hl-kw:const",
                                             "hl-bi:float",
                                             "hl-op:*",
                                             "hl-kw:__restrict__",
                                             "hl-com:/* block */",
                                             "hl-bi:int",
                                             "hl-op:=",
                                             "hl-num:1'000",
                                             "hl-com:// line",
                                             "hl-kw:auto",
                                             "hl-op:=",
                                             "hl-str:R\"x(a \"quoted\" b)x\"",
                                             "hl-bi:char",
                                             "hl-op:=",
                                             "hl-str:'\\''"};
  CHECK(d == expected);
}

TEST_CASE("json tokenizer tells keys from string values") {
  const auto d = describe("{\"a\": \"b\", \"n\": -1.5e3, \"t\": [true, null]}", Language::Json);
  const std::vector<std::string> expected = {"hl-key:\"a\"",  "hl-str:\"b\"", "hl-key:\"n\"",
                                             "hl-num:-1.5e3", "hl-key:\"t\"", "hl-const:true",
                                             "hl-const:null"};
  CHECK(d == expected);
}

TEST_CASE("highlighted HTML escapes markup from the source text") {
  const std::string html =
      to_html("x = '<script>alert(1)</script>'  # \"onload=\n", Language::Python);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("&lt;script&gt;") != std::string::npos);
  CHECK(html.find("\"onload") == std::string::npos);
  CHECK(to_html("a<b", Language::PlainText) == "a&lt;b");
}

TEST_CASE("html escaping replaces invalid UTF-8 and keeps valid multibyte text") {
  CHECK(html_escape("a\xFF\xC3\xA9<\xE2\x82") ==
        "a\xEF\xBF\xBD\xC3\xA9&lt;\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(is_valid_utf8("\xF0\x9F\x98\x80"));
  CHECK_FALSE(is_valid_utf8("\xED\xA0\x80")); // surrogate
  CHECK_FALSE(is_valid_utf8("\xC0\xAF"));     // overlong
  CHECK(html_escape("'&\"") == "&#39;&amp;&quot;");
}

TEST_CASE("html escaping, eight bytes at a time, equals a byte-by-byte escape of the repair") {
  // The reference: repair the UTF-8 first, then escape each byte on its own.
  const auto reference = [](std::string_view text) {
    std::string out;
    for (const char c : sanitize_utf8(text)) {
      switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      case '\0':
        out += "\xEF\xBF\xBD";
        break;
      default:
        out += c;
      }
    }
    return out;
  };
  // Special bytes at every offset of an eight-byte word, and near the end of the text.
  static const std::string kSpecials[] = {
      "&",    "<",    ">",           "\"", "'", std::string(1, '\0'), "\xc3\xa9", "\xe2\x82\xac",
      "\xff", "\xc3", "\xed\xa0\x80"};
  for (const std::string& special : kSpecials) {
    for (std::size_t before = 0; before < 20; ++before) {
      for (std::size_t after = 0; after < 10; ++after) {
        const std::string text = std::string(before, 'a') + special + std::string(after, 'b');
        CHECK(html_escape(text) == reference(text));
      }
    }
  }
  std::mt19937 rng(99);
  const std::string alphabet = std::string("ab &<>\"'\xc3\xa9\xff\x80\xe2") + '\0';
  for (int i = 0; i < 2000; ++i) {
    std::string text(rng() % 64, ' ');
    for (char& c : text) {
      c = alphabet[rng() % alphabet.size()];
    }
    CHECK(html_escape(text) == reference(text));
  }
}

TEST_CASE("tokens tile any input in order, even random bytes and unterminated literals") {
  std::mt19937 rng(1234);
  const std::string alphabet = "ab_1.e+-'\"#/*\n\t ()[]{}:@\\R<>x\xC3\xA9";
  for (int round = 0; round < 300; ++round) {
    std::string text;
    const int n = static_cast<int>(rng() % 200);
    for (int i = 0; i < n; ++i) {
      text.push_back(alphabet[rng() % alphabet.size()]);
    }
    for (Language lang : {Language::Python, Language::Cpp, Language::Json}) {
      INFO(text);
      CHECK(well_formed(text, tokenize(text, lang)));
    }
  }
  CHECK(well_formed("'''", tokenize("'''", Language::Python)));
  CHECK(well_formed("/*", tokenize("/*", Language::Cpp)));
}
