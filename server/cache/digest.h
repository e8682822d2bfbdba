// digest.h - SHA-256 as lowercase hex: cache keys and content addresses.
#ifndef MSJIT_SERVER_CACHE_DIGEST_H
#define MSJIT_SERVER_CACHE_DIGEST_H

#include <string>
#include <string_view>

namespace msjit::server {

std::string sha256Hex(std::string_view bytes);

// True for 64 lowercase hex characters: the only names the stores accept, so
// a client-supplied key can never escape the cache directory.
bool isDigest(std::string_view text);

}  // namespace msjit::server

#endif  // MSJIT_SERVER_CACHE_DIGEST_H
