// Histograms and the Prometheus text rendering of msjitd's metrics.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <stdexcept>
#include <sstream>
#include <thread>
#include <vector>

#include "server/metrics.h"
#include "server/metrics_http.h"

using msjit::server::Histogram;
using msjit::server::Metrics;

namespace {

// Sample lines of a rendering: "name{labels}" -> value text.
std::map<std::string, std::string> samples(const std::string &text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    auto space = line.rfind(' ');
    out[line.substr(0, space)] = line.substr(space + 1);
  }
  return out;
}

}  // namespace

TEST_CASE("a histogram counts each observation in the first bucket whose bound is >= it") {
  Histogram h("t_seconds", "test", {0.001, 0.01, 0.1});
  h.observe(0.0005);
  h.observe(0.001);  // on a bound: "less than or equal"
  h.observe(0.05);
  h.observe(7);      // past every bound: only +Inf
  h.observe(-1);     // a clock step backwards counts as zero
  CHECK(h.count() == 5);
  CHECK(h.cumulative(0) == 3);
  CHECK(h.cumulative(1) == 3);
  CHECK(h.cumulative(2) == 4);
  CHECK(h.cumulative(3) == 5);
  CHECK(h.sum() == Approx(7.0515));
}

TEST_CASE("a histogram renders cumulative buckets, _sum and _count after HELP and TYPE") {
  Histogram h("t_seconds", "Test help.", {0.005, 0.25, 1});
  h.observe(0.003);
  h.observe(0.2);
  h.observe(0.2);
  std::string text = h.render();
  CHECK(text.rfind("# HELP t_seconds Test help.\n# TYPE t_seconds histogram\n", 0) == 0);
  auto s = samples(text);
  CHECK(s["t_seconds_bucket{le=\"0.005\"}"] == "1");
  CHECK(s["t_seconds_bucket{le=\"0.25\"}"] == "3");
  CHECK(s["t_seconds_bucket{le=\"1\"}"] == "3");
  CHECK(s["t_seconds_bucket{le=\"+Inf\"}"] == "3");
  CHECK(s["t_seconds_count"] == "3");
  CHECK(std::stod(s["t_seconds_sum"]) == Approx(0.403));
  CHECK(s.size() == 6);
}

TEST_CASE("bounds must increase strictly and fit the fixed bucket array") {
  CHECK_THROWS(Histogram("x", "x", {0.1, 0.1}));
  CHECK_THROWS(Histogram("x", "x", {1, 0.5}));
  CHECK_THROWS(Histogram("x", "x", std::vector<double>(Histogram::kMaxBuckets + 1, 1.0)));
  CHECK_NOTHROW(Histogram("x", "x", {}));
}

TEST_CASE("observations from several threads are all counted") {
  Histogram h("t", "t", {0.5});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) h.observe(i % 2 ? 0.25 : 0.75);
    });
  for (auto &t : threads) t.join();
  CHECK(h.count() == 40000);
  CHECK(h.cumulative(0) == 20000);
  CHECK(h.sum() == Approx(20000.0));
}

TEST_CASE("label values escape backslash, double quote and newline") {
  CHECK(msjit::server::escapeLabelValue("plain") == "plain");
  CHECK(msjit::server::escapeLabelValue("a\\b\"c\nd") == "a\\\\b\\\"c\\nd");
}

TEST_CASE("renderPrometheus exposes the Stats counters, per-rpc requests and the histograms") {
  msjit::rpc::StatsReply stats;
  stats.set_compiles(3);
  stats.set_memory_hits(5);
  stats.set_disk_hits(2);
  stats.set_shared_hits(7);
  stats.set_shared_waits(1);
  stats.set_inflight_joins(4);
  stats.set_queued(2);
  stats.set_shared_ms_total(1500);
  stats.set_cache_dir("/secret/path");
  stats.set_shared_cache("redis://10.0.0.1:6379");
  Metrics metrics;
  metrics.countRequest(msjit::server::Rpc::kCompile);
  metrics.countRequest(msjit::server::Rpc::kCompile);
  metrics.countRequest(msjit::server::Rpc::kRemoveCacheEntry);
  metrics.compile_seconds.observe(0.3);
  std::string text = msjit::server::renderPrometheus(stats, metrics);
  auto s = samples(text);
  CHECK(s["msjit_requests_total{rpc=\"Compile\"}"] == "2");
  CHECK(s["msjit_requests_total{rpc=\"RemoveCacheEntry\"}"] == "1");
  CHECK(s["msjit_requests_total{rpc=\"Stats\"}"] == "0");
  CHECK(s["msjit_compiles_total"] == "3");
  CHECK(s["msjit_cache_hits_total{tier=\"memory\"}"] == "5");
  CHECK(s["msjit_cache_hits_total{tier=\"disk\"}"] == "2");
  CHECK(s["msjit_cache_hits_total{tier=\"shared\"}"] == "7");
  CHECK(s["msjit_cache_hits_total{tier=\"cluster\"}"] == "1");
  CHECK(s["msjit_cache_hits_total{tier=\"inflight\"}"] == "4");
  CHECK(s["msjit_queue_depth"] == "2");
  CHECK(s["msjit_shared_enabled"] == "1");
  CHECK(s["msjit_shared_call_seconds_total"] == "1.5");
  CHECK(s["msjit_compile_duration_seconds_count"] == "1");
  CHECK(s["msjit_compile_duration_seconds_bucket{le=\"0.5\"}"] == "1");
  CHECK(s.count("msjit_shared_call_duration_seconds_count") == 1);
  CHECK(s.count("msjit_compile_request_duration_seconds_count") == 1);
  // An unauthenticated endpoint: nothing that names a path or an address.
  CHECK(text.find("/secret/path") == std::string::npos);
  CHECK(text.find("10.0.0.1") == std::string::npos);
  // Every family has its HELP and TYPE once, before its samples; counters end in _total.
  std::istringstream in(text);
  std::map<std::string, std::string> types;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# TYPE ", 0) == 0) {
      std::istringstream words(line.substr(7));
      std::string name, type;
      words >> name >> type;
      CHECK(types.count(name) == 0);
      types[name] = type;
      if (type == "counter") CHECK(name.size() > 6);
      if (type == "counter") CHECK(name.substr(name.size() - 6) == "_total");
    } else if (!line.empty() && line[0] != '#') {
      std::string name = line.substr(0, line.find_first_of("{ "));
      bool known = types.count(name) > 0;
      for (const char *suffix : {"_bucket", "_sum", "_count"}) {
        std::string sfx = suffix;
        if (name.size() > sfx.size() && name.substr(name.size() - sfx.size()) == sfx)
          known = known || types.count(name.substr(0, name.size() - sfx.size())) > 0;
      }
      INFO(line);
      CHECK(known);
    }
  }
}

TEST_CASE("metricsHttpReply answers each request head with the right status") {
  auto render = [] { return std::string("msjit_up 1\n"); };
  auto status = [&](const std::string &head) {
    std::string reply = msjit::server::metricsHttpReply(head, render);
    return reply.substr(0, reply.find("\r\n"));
  };
  CHECK(status("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n") == "HTTP/1.1 200 OK");
  CHECK(status("GET /metrics?x=1 HTTP/1.0\n\n") == "HTTP/1.1 200 OK");
  CHECK(status("GET /metricsx HTTP/1.1\r\n\r\n") == "HTTP/1.1 404 Not Found");
  CHECK(status("HEAD /metrics HTTP/1.1\r\n\r\n") == "HTTP/1.1 405 Method Not Allowed");
  CHECK(status("GET /metrics\r\n\r\n") == "HTTP/1.1 400 Bad Request");
  CHECK(status("GET /metrics HTTP/2 extra\r\n\r\n") == "HTTP/1.1 400 Bad Request");
  CHECK(status("GET /metrics SPDY/3\r\n\r\n") == "HTTP/1.1 400 Bad Request");
  std::string ok = msjit::server::metricsHttpReply("GET /metrics HTTP/1.1\r\n\r\n", render);
  CHECK(ok.find("Content-Type: text/plain; version=0.0.4") != std::string::npos);
  CHECK(ok.find("Content-Length: 11\r\n") != std::string::npos);
  CHECK(ok.substr(ok.size() - 11) == "msjit_up 1\n");
  // A renderer that throws is a 500 for that scrape, never the daemon's end.
  auto throwing = []() -> std::string { throw std::runtime_error("boom"); };
  std::string failed = msjit::server::metricsHttpReply("GET /metrics HTTP/1.1\r\n\r\n", throwing);
  CHECK(failed.rfind("HTTP/1.1 500 ", 0) == 0);
}

TEST_CASE("the metrics server binds an ephemeral port, serves, and stops promptly") {
  msjit::server::MetricsHttpServer server([] { return std::string("msjit_up 1\n"); });
  CHECK(server.start("no-colon") != "");
  CHECK(server.start("127.0.0.1:no-such-service") != "");
  REQUIRE(server.start("127.0.0.1:0") == "");
  REQUIRE(server.port() > 0);
  auto get = [&](const std::string &request) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(server.port()));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::string reply;
    if (::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) == 0) {
      timeval tv{10, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
      (void)!::write(fd, request.data(), request.size());
      char buf[4096];
      for (ssize_t n; (n = ::read(fd, buf, sizeof(buf))) > 0;) reply.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return reply;
  };
  std::string reply = get("GET /metrics HTTP/1.1\r\n\r\n");
  CHECK(reply.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
  CHECK(reply.substr(reply.size() - 11) == "msjit_up 1\n");
  CHECK(get("GET / HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 404", 0) == 0);
  auto started = std::chrono::steady_clock::now();
  server.stop();
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(2));
  CHECK(get("GET /metrics HTTP/1.1\r\n\r\n").empty());  // nobody listens any more
  server.stop();  // idempotent
}
