// frame.h - length-prefixed protobuf messages over pipes (msjitd <-> msjit-worker).
#ifndef MSJIT_SERVER_WORKER_FRAME_H
#define MSJIT_SERVER_WORKER_FRAME_H

#include <cstdint>
#include <string>

#include <google/protobuf/message_lite.h>

namespace msjit::server {

// Frames larger than this are a broken peer, not a message (the daemon caps requests lower).
constexpr uint64_t kMaxFrameBytes = uint64_t(4) << 30;

// Writes the 8-byte little-endian length and the serialized message. False on a closed pipe.
bool writeFrame(int fd, const google::protobuf::MessageLite &message);

// Reads one whole frame into `message`. False at end of file, on a short read or unparseable bytes.
bool readFrame(int fd, google::protobuf::MessageLite &message);

// Incremental reader for a poll() loop: feed() what is readable until done().
class FrameReader {
 public:
  // Reads what `fd` has now (never blocks longer than one read). False on end of file or error.
  bool feed(int fd);
  bool done() const;
  bool parse(google::protobuf::MessageLite &message) const;

 private:
  std::string header_, body_;
  uint64_t length_ = 0;
};

}  // namespace msjit::server

#endif  // MSJIT_SERVER_WORKER_FRAME_H
