#include "server/worker/frame.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace msjit::server {
namespace {

// Moves all `size` bytes with `io` (::read or ::write), retrying short transfers and EINTR.
template <typename Io, typename Buffer>
bool transferAll(Io io, int fd, Buffer *data, size_t size) {
  while (size > 0) {
    ssize_t n = io(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool writeAll(int fd, const char *data, size_t size) { return transferAll(::write, fd, data, size); }
bool readAll(int fd, char *data, size_t size) { return transferAll(::read, fd, data, size); }

uint64_t decodeLength(const char *bytes) {
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | static_cast<unsigned char>(bytes[i]);
  return length;
}

}  // namespace

bool writeFrame(int fd, const google::protobuf::MessageLite &message) {
  std::string body;
  if (!message.SerializeToString(&body)) return false;
  char header[8];
  uint64_t length = body.size();
  for (int i = 0; i < 8; ++i) header[i] = static_cast<char>((length >> (8 * i)) & 0xff);
  return writeAll(fd, header, sizeof(header)) && writeAll(fd, body.data(), body.size());
}

bool readFrame(int fd, google::protobuf::MessageLite &message) {
  char header[8];
  if (!readAll(fd, header, sizeof(header))) return false;
  uint64_t length = decodeLength(header);
  if (length > kMaxFrameBytes) return false;
  std::string body(length, '\0');
  return readAll(fd, body.data(), body.size()) && message.ParseFromString(body);
}

bool FrameReader::feed(int fd) {
  char buffer[1 << 16];
  size_t want = header_.size() < 8 ? 8 - header_.size() : length_ - body_.size();
  ssize_t n = ::read(fd, buffer, std::min(want, sizeof(buffer)));
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) return false;
  if (header_.size() < 8) {
    header_.append(buffer, static_cast<size_t>(n));
    if (header_.size() == 8) {
      length_ = decodeLength(header_.data());
      if (length_ > kMaxFrameBytes) return false;
      body_.reserve(length_);
    }
  } else {
    body_.append(buffer, static_cast<size_t>(n));
  }
  return true;
}

bool FrameReader::done() const { return header_.size() == 8 && body_.size() == length_; }

bool FrameReader::parse(google::protobuf::MessageLite &message) const { return message.ParseFromString(body_); }

}  // namespace msjit::server
