// JsonWriter must format byte-for-byte as Python's json.dumps, the writer PyTorch uses.
#include "tracer/json_writer.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

using tracer::JsonWriter;

namespace {
std::string py_float(double d) {
  std::string s;
  JsonWriter::append_python_float(s, d);
  return s;
}
std::string escaped(std::string_view v) {
  std::string s;
  JsonWriter::append_escaped(s, v);
  return s;
}
} // namespace

TEST_CASE("floats print as Python's repr", "[tracer][json]") {
  CHECK(py_float(0.0) == "0.0");
  CHECK(py_float(-0.0) == "-0.0");
  CHECK(py_float(1.0) == "1.0");
  CHECK(py_float(2.5) == "2.5");
  CHECK(py_float(0.1) == "0.1");
  CHECK(py_float(1e-4) == "0.0001");
  CHECK(py_float(1e-5) == "1e-05");
  CHECK(py_float(123456789.0) == "123456789.0");
  CHECK(py_float(1e16) == "1e+16");
  CHECK(py_float(1.5e16) == "1.5e+16");
  CHECK(py_float(9999999999999998.0) == "9999999999999998.0");
  CHECK(py_float(1795316326084826.8) == "1795316326084826.8");
  CHECK(py_float(0.009947563) == "0.009947563");
  CHECK(py_float(-2.388335) == "-2.388335");
  CHECK(py_float(1.7976931348623157e308) == "1.7976931348623157e+308");
  CHECK(py_float(5e-324) == "5e-324");
  CHECK(py_float(std::numeric_limits<double>::quiet_NaN()) == "NaN");
  CHECK(py_float(-std::numeric_limits<double>::infinity()) == "-Infinity");
}

TEST_CASE("strings are escaped as json.dumps(ensure_ascii=True) does", "[tracer][json]") {
  CHECK(escaped("plain") == R"("plain")");
  CHECK(escaped("a\"b\\c") == R"("a\"b\\c")");
  CHECK(escaped("tab\tnl\ncr\r") == R"("tab\tnl\ncr\r")");
  CHECK(escaped(std::string("\x01\x1f\x7f", 3)) == R"("\u0001\u001f\u007f")");
  CHECK(escaped("caf\xc3\xa9") == R"("caf\u00e9")");
  CHECK(escaped("\xf0\x9f\x98\x80") == R"("\ud83d\ude00")"); // U+1F600, a surrogate pair
  CHECK(escaped("\xff") == R"("\ufffd")");                   // invalid UTF-8 never fails
  CHECK(escaped("<script>") == R"("<script>")");
}

TEST_CASE("compact layout matches json.dumps separators", "[tracer][json]") {
  std::string out;
  JsonWriter w(out);
  w.begin_object()
      .member("id", 0)
      .member("ndim", 2)
      .key("size")
      .begin_array()
      .value(8)
      .value(128)
      .end_array()
      .key("empty")
      .begin_object()
      .end_object()
      .key("list")
      .begin_array()
      .end_array()
      .member("is_leaf", true)
      .key("n")
      .null()
      .end_object();
  CHECK(
      out ==
      R"({"id": 0, "ndim": 2, "size": [8, 128], "empty": {}, "list": [], "is_leaf": true, "n": null})");
}

TEST_CASE("indent0 layout matches json.dumps(indent=0)", "[tracer][json]") {
  std::string out;
  JsonWriter w(out, JsonWriter::Layout::Indent0);
  w.begin_object()
      .member("name", "dynamo")
      .member("ts", 1795316326084826.8)
      .key("args")
      .begin_object()
      .member("compile_id", "0/0")
      .end_object()
      .key("empty")
      .begin_array()
      .end_array()
      .end_object();
  CHECK(out == "{\n\"name\": \"dynamo\",\n\"ts\": 1795316326084826.8,\n\"args\": {\n"
               "\"compile_id\": \"0/0\"\n},\n\"empty\": []\n}");
}
