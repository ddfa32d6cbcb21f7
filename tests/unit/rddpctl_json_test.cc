// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// rddpctl's JSON writer (userspace/rddpctl/json.h), checked against
// nlohmann::json: escaping, numbers, nesting, pretty printing, misuse.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>

#include "json.h"

namespace rddpctl {
namespace {

using nlohmann::json;

TEST(RddpctlJson, Scalars) {
  EXPECT_EQ(JsonWriter(false).String("x").str(), "\"x\"");
  EXPECT_EQ(JsonWriter(false).Bool(true).str(), "true");
  EXPECT_EQ(JsonWriter(false).Bool(false).str(), "false");
  EXPECT_EQ(JsonWriter(false).Null().str(), "null");
  EXPECT_EQ(JsonWriter(false).Number(0).str(), "0");
  EXPECT_EQ(JsonWriter(false).Number(std::numeric_limits<uint64_t>::max()).str(),
            "18446744073709551615");
  EXPECT_EQ(JsonWriter(false).Number(std::numeric_limits<int64_t>::min()).str(),
            "-9223372036854775808");
  EXPECT_EQ(JsonWriter(false).Number(uint8_t{200}).str(), "200");  // a number, not a char
}

TEST(RddpctlJson, Nesting) {
  JsonWriter j(false);
  j.BeginObject()
      .Key("a")
      .BeginArray()
      .Number(1)
      .BeginObject()
      .EndObject()
      .BeginArray()
      .EndArray()
      .EndArray()
      .Field("b", "text")
      .Field("c", true)
      .Field("d", uint16_t{7})
      .Field("e", std::optional<int>())
      .Field("f", std::optional<bool>(false))
      .Field("g", std::string("s"))
      .EndObject();
  EXPECT_EQ(j.str(), R"({"a":[1,{},[]],"b":"text","c":true,"d":7,"f":false,"g":"s"})");
  EXPECT_EQ(json::parse(j.str())["a"][0], 1);
}

TEST(RddpctlJson, Pretty) {
  JsonWriter j(true);
  j.BeginArray()
      .BeginObject()
      .Field("name", "rddp0")
      .Key("stats")
      .BeginObject()
      .EndObject()
      .Key("list")
      .BeginArray()
      .Number(1)
      .Number(2)
      .EndArray()
      .EndObject()
      .EndArray();
  EXPECT_EQ(j.str(),
            "[\n"
            "  {\n"
            "    \"name\": \"rddp0\",\n"
            "    \"stats\": {},\n"
            "    \"list\": [\n"
            "      1,\n"
            "      2\n"
            "    ]\n"
            "  }\n"
            "]");
  EXPECT_EQ(json::parse(j.str())[0]["list"][1], 2);
  EXPECT_EQ(JsonWriter(true).BeginArray().EndArray().str(), "[]");
}

TEST(RddpctlJson, Escapes) {
  const std::string nasty = std::string("q\" b\\ s/ \b\f\n\r\t \x01\x1f\x7f ") + '\0' + "end";
  const std::string text = JsonWriter(false).String(nasty).str();
  EXPECT_EQ(text, R"("q\" b\\ s/ \b\f\n\r\t \u0001\u001f\u007f \u0000end")");
  EXPECT_EQ(json::parse(text).get<std::string>(), nasty);
}

TEST(RddpctlJson, Utf8) {
  // Valid sequences of every length pass through unchanged.
  const std::string valid = "A \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";
  EXPECT_EQ(JsonWriter(false).String(valid).str(), "\"" + valid + "\"");
  EXPECT_EQ(json::parse(JsonWriter(false).String(valid).str()).get<std::string>(), valid);
  // Each byte that starts no well-formed sequence becomes U+FFFD.
  const struct {
    const char* in;
    const char* out;
  } bad[] = {
      {"\xff", R"(\ufffd)"},                                // never valid
      {"\xc3", R"(\ufffd)"},                                // cut short at the end
      {"\xc3(", R"(\ufffd()"},                              // bad continuation
      {"\xc0\xaf", R"(\ufffd\ufffd)"},                      // overlong '/'
      {"\xe0\x80\xaf", R"(\ufffd\ufffd\ufffd)"},            // overlong, 3 bytes
      {"\xed\xa0\x80", R"(\ufffd\ufffd\ufffd)"},            // a UTF-16 surrogate
      {"\xf4\x90\x80\x80", R"(\ufffd\ufffd\ufffd\ufffd)"},  // above U+10FFFF
      {"\x80", R"(\ufffd)"},                                // a lone continuation byte
  };
  for (const auto& b : bad) {
    const std::string text = JsonWriter(false).String(b.in).str();
    EXPECT_EQ(text, std::string("\"") + b.out + "\"") << b.out;
    EXPECT_NO_THROW(json::parse(text)) << text;
  }
}

TEST(RddpctlJson, Misuse) {
  EXPECT_THROW(JsonWriter(false).BeginObject().Number(1), std::logic_error);
  EXPECT_THROW(JsonWriter(false).BeginArray().Key("k"), std::logic_error);
  EXPECT_THROW(JsonWriter(false).Key("k"), std::logic_error);
  EXPECT_THROW(JsonWriter(false).BeginObject().Key("a").Key("b"), std::logic_error);
  EXPECT_THROW(JsonWriter(false).BeginObject().EndArray(), std::logic_error);
  EXPECT_THROW(JsonWriter(false).EndObject(), std::logic_error);
  EXPECT_THROW(JsonWriter(false).BeginObject().Key("a").EndObject(), std::logic_error);
  EXPECT_THROW(JsonWriter(false).Number(1).Number(2), std::logic_error);
  EXPECT_THROW(JsonWriter(false).BeginArray().EndArray().BeginArray(), std::logic_error);
  EXPECT_THROW((void)JsonWriter(false).BeginArray().str(), std::logic_error);
  EXPECT_THROW((void)JsonWriter(false).BeginObject().Key("a").str(), std::logic_error);
}

}  // namespace
}  // namespace rddpctl
