#include "common/json_writer.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace netbench {

std::string JsonWriter::Escape(absl::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out.push_back('"');
  for (unsigned char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += absl::StrFormat("\\u%04x", c);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
  return out;
}

void JsonWriter::Newline() {
  out_.push_back('\n');
  out_.append(2 * item_counts_.size(), ' ');
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!item_counts_.empty()) {
    if (item_counts_.back()++ > 0) out_.push_back(',');
    Newline();
  }
}

JsonWriter& JsonWriter::BeginObject() {
  BeforeValue();
  out_.push_back('{');
  item_counts_.push_back(0);
  return *this;
}

JsonWriter& JsonWriter::EndContainer(char closer) {
  bool had_items = item_counts_.back() > 0;
  item_counts_.pop_back();
  if (had_items) Newline();
  out_.push_back(closer);
  return *this;
}

JsonWriter& JsonWriter::EndObject() { return EndContainer('}'); }

JsonWriter& JsonWriter::BeginArray() {
  BeforeValue();
  out_.push_back('[');
  item_counts_.push_back(0);
  return *this;
}

JsonWriter& JsonWriter::EndArray() { return EndContainer(']'); }

JsonWriter& JsonWriter::Key(absl::string_view key) {
  BeforeValue();
  out_ += Escape(key);
  out_ += ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(absl::string_view value) {
  BeforeValue();
  out_ += Escape(value);
  return *this;
}

JsonWriter& JsonWriter::Number(double value) {
  BeforeValue();
  if (!std::isfinite(value)) {
    out_ += "null";
  } else if (value == std::floor(value) && std::fabs(value) < 1e15) {
    absl::StrAppend(&out_, static_cast<int64_t>(value));
  } else {
    absl::StrAppend(&out_, absl::StrFormat("%.9g", value));
  }
  return *this;
}

JsonWriter& JsonWriter::Int(int64_t value) {
  BeforeValue();
  absl::StrAppend(&out_, value);
  return *this;
}

JsonWriter& JsonWriter::Bool(bool value) {
  BeforeValue();
  out_ += value ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::Null() {
  BeforeValue();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::Raw(absl::string_view json) {
  BeforeValue();
  out_.append(json.data(), json.size());
  return *this;
}

}  // namespace netbench
