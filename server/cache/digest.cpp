#include "server/cache/digest.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SHA256.h"

namespace msjit::server {

std::string sha256Hex(std::string_view bytes) {
  llvm::SHA256 hash;
  hash.update(llvm::StringRef(bytes.data(), bytes.size()));
  static const char *hex = "0123456789abcdef";
  std::string out;
  for (uint8_t b : hash.final()) {
    out.push_back(hex[b >> 4]);
    out.push_back(hex[b & 15]);
  }
  return out;
}

bool isDigest(std::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace msjit::server
