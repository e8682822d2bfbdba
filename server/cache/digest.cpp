#include "server/cache/digest.h"

#include <openssl/evp.h>

namespace msjit::server {

std::string sha256Hex(std::string_view bytes) {
  unsigned char hash[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(bytes.data(), bytes.size(), hash, &size, EVP_sha256(), nullptr);
  static const char *hex = "0123456789abcdef";
  std::string out;
  for (unsigned char b : std::string_view(reinterpret_cast<const char *>(hash), size)) {
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
