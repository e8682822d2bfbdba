// worker_exit.h - how a worker's end is told apart by the daemon.
#ifndef MSJIT_SERVER_WORKER_WORKER_EXIT_H
#define MSJIT_SERVER_WORKER_WORKER_EXIT_H

namespace msjit::server {

// A worker that ran out of its memory limit exits with this status.
constexpr int kExitOutOfMemory = 86;

}  // namespace msjit::server

#endif  // MSJIT_SERVER_WORKER_WORKER_EXIT_H
