// A small streaming JSON writer for result documents: objects, arrays, strings (escaped per RFC 8259),
// numbers (non-finite ones become null) and booleans, pretty-printed with two-space indents.
//
//   JsonWriter json;
//   json.BeginObject();
//   json.Key("program").String("echo-client");
//   json.Key("rate").Number(123456.7);
//   json.EndObject();
//   std::string text = json.Take();
//
// Reading JSON back (tests, reports) uses nlohmann::json instead: writing is the only part netbench owns.
#ifndef NETBENCH_COMMON_JSON_WRITER_H_
#define NETBENCH_COMMON_JSON_WRITER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace netbench {

class JsonWriter {
 public:
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(absl::string_view key);
  JsonWriter& String(absl::string_view value);
  JsonWriter& Number(double value);
  JsonWriter& Int(int64_t value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();
  // Inserts already-serialised JSON as a value (from another writer).
  JsonWriter& Raw(absl::string_view json);

  std::string Take() { return std::move(out_); }

  static std::string Escape(absl::string_view text);

 private:
  void BeforeValue();
  JsonWriter& EndContainer(char closer);
  void Newline();

  std::string out_;
  // One entry per open container: how many items it holds so far.
  std::vector<int> item_counts_;
  bool after_key_ = false;
};

}  // namespace netbench

#endif  // NETBENCH_COMMON_JSON_WRITER_H_
