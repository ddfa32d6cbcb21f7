// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// A small streaming JSON writer (RFC 8259) for rddpctl's -j output: objects,
// arrays, strings escaped (invalid UTF-8 becomes U+FFFD), integers,
// booleans; compact, or indented by two spaces with -p. Misuse (a value
// without a key inside an object, unbalanced ends) throws std::logic_error:
// it is a bug in rddpctl, never in its input.
#ifndef RDDPCTL_JSON_H
#define RDDPCTL_JSON_H

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rddpctl {

class JsonWriter {
 public:
  explicit JsonWriter(bool pretty) : pretty_(pretty) {}

  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view key);

  JsonWriter& String(std::string_view value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();
  template <std::integral T>
  requires(!std::same_as<T, bool>) JsonWriter& Number(T value) {
    BeforeValue();
    out_ += std::to_string(value);
    AfterScalar();
    return *this;
  }

  // Key and value in one call; an empty optional writes nothing at all.
  JsonWriter& Field(std::string_view key, std::string_view value) { return Key(key).String(value); }
  JsonWriter& Field(std::string_view key, const char* value) {
    return Field(key, std::string_view(value));
  }
  JsonWriter& Field(std::string_view key, const std::string& value) {
    return Field(key, std::string_view(value));
  }
  template <typename T>
  requires std::same_as<T, bool> JsonWriter& Field(std::string_view key, T value) {
    return Key(key).Bool(value);
  }
  template <std::integral T>
  requires(!std::same_as<T, bool>) JsonWriter& Field(std::string_view key, T value) {
    return Key(key).Number(value);
  }
  template <typename T>
  JsonWriter& Field(std::string_view key, const std::optional<T>& value) {
    if (value) Field(key, *value);
    return *this;
  }

  // The document. Throws std::logic_error while a container is open.
  [[nodiscard]] std::string str() const;

 private:
  struct Level {
    bool is_object;
    bool empty;
  };

  void BeforeValue();
  void AfterScalar() {
    if (open_.empty()) complete_ = true;
  }
  void Open(char bracket, bool is_object);
  void Close(char bracket, bool is_object);
  void NewLine();
  void Quote(std::string_view text);

  bool pretty_;
  std::string out_;
  std::vector<Level> open_;
  bool key_pending_ = false;
  bool complete_ = false;  // the top-level value is written
};

}  // namespace rddpctl

#endif  // RDDPCTL_JSON_H
