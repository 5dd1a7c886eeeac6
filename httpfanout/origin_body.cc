#include "httpfanout/origin_body.h"

namespace netbench {

std::string MakeOriginBody(size_t size) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string body(size, '\0');
  for (size_t i = 0; i < size; ++i) {
    body[i] = (i % 80 == 79) ? '\n' : kAlphabet[(i ^ (i >> 6) ^ (i >> 12)) & 63];
  }
  return body;
}

}  // namespace netbench
