// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include "json.h"

#include <array>
#include <stdexcept>

namespace rddpctl {

namespace {

// The length of the well-formed UTF-8 sequence at the start of `s`
// (Unicode 15, Table 3-7: no overlong forms, no surrogates, nothing above
// U+10FFFF), or 0 if there is none.
size_t Utf8SequenceLength(std::string_view s) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const auto continuation = [&](size_t i, unsigned char lo = 0x80, unsigned char hi = 0xbf) {
    return i < s.size() && byte(i) >= lo && byte(i) <= hi;
  };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return continuation(1) ? 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) {
    const unsigned char lo = lead == 0xe0 ? 0xa0 : 0x80;
    const unsigned char hi = lead == 0xed ? 0x9f : 0xbf;
    return continuation(1, lo, hi) && continuation(2) ? 3 : 0;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    const unsigned char lo = lead == 0xf0 ? 0x90 : 0x80;
    const unsigned char hi = lead == 0xf4 ? 0x8f : 0xbf;
    return continuation(1, lo, hi) && continuation(2) && continuation(3) ? 4 : 0;
  }
  return 0;
}

}  // namespace

void JsonWriter::NewLine() {
  out_ += '\n';
  out_.append(2 * open_.size(), ' ');
}

void JsonWriter::BeforeValue() {
  if (key_pending_) {
    key_pending_ = false;
    return;
  }
  if (open_.empty()) {
    if (complete_) throw std::logic_error("JSON: a second top-level value");
    return;
  }
  Level& level = open_.back();
  if (level.is_object) throw std::logic_error("JSON: a value in an object needs a key");
  if (!level.empty) out_ += ',';
  level.empty = false;
  if (pretty_) NewLine();
}

void JsonWriter::Open(char bracket, bool is_object) {
  BeforeValue();
  out_ += bracket;
  open_.push_back({is_object, true});
}

void JsonWriter::Close(char bracket, bool is_object) {
  if (open_.empty() || open_.back().is_object != is_object || key_pending_)
    throw std::logic_error(std::string("JSON: unbalanced '") + bracket + "'");
  const bool empty = open_.back().empty;
  open_.pop_back();
  if (pretty_ && !empty) NewLine();
  out_ += bracket;
  if (open_.empty()) complete_ = true;
}

JsonWriter& JsonWriter::BeginObject() {
  Open('{', true);
  return *this;
}

JsonWriter& JsonWriter::EndObject() {
  Close('}', true);
  return *this;
}

JsonWriter& JsonWriter::BeginArray() {
  Open('[', false);
  return *this;
}

JsonWriter& JsonWriter::EndArray() {
  Close(']', false);
  return *this;
}

JsonWriter& JsonWriter::Key(std::string_view key) {
  if (open_.empty() || !open_.back().is_object || key_pending_)
    throw std::logic_error("JSON: a key outside an object");
  Level& level = open_.back();
  if (!level.empty) out_ += ',';
  level.empty = false;
  if (pretty_) NewLine();
  Quote(key);
  out_ += pretty_ ? ": " : ":";
  key_pending_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(std::string_view value) {
  BeforeValue();
  Quote(value);
  AfterScalar();
  return *this;
}

JsonWriter& JsonWriter::Bool(bool value) {
  BeforeValue();
  out_ += value ? "true" : "false";
  AfterScalar();
  return *this;
}

JsonWriter& JsonWriter::Null() {
  BeforeValue();
  out_ += "null";
  AfterScalar();
  return *this;
}

void JsonWriter::Quote(std::string_view text) {
  static constexpr std::string_view kHex = "0123456789abcdef";
  out_ += '"';
  while (!text.empty()) {
    const auto c = static_cast<unsigned char>(text[0]);
    size_t used = 1;
    switch (c) {
      case '"':
        out_ += "\\\"";
        break;
      case '\\':
        out_ += "\\\\";
        break;
      case '\b':
        out_ += "\\b";
        break;
      case '\f':
        out_ += "\\f";
        break;
      case '\n':
        out_ += "\\n";
        break;
      case '\r':
        out_ += "\\r";
        break;
      case '\t':
        out_ += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out_ += "\\u00";
          out_ += kHex[c >> 4];
          out_ += kHex[c & 0xf];
        } else if (size_t n = Utf8SequenceLength(text); n > 0) {
          out_.append(text.substr(0, n));
          used = n;
        } else {
          out_ += "\\ufffd";  // not UTF-8: say so rather than emit invalid JSON
        }
    }
    text.remove_prefix(used);
  }
  out_ += '"';
}

std::string JsonWriter::str() const {
  if (!open_.empty() || key_pending_) throw std::logic_error("JSON: document not finished");
  return out_;
}

}  // namespace rddpctl
