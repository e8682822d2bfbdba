// cache_test.cpp - stores, tiers and the cache key.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "server/cache/artifact_cache.h"
#include "server/cache/cache_key.h"
#include "server/cache/digest.h"
#include "server/cache/disk_store.h"
#include "server/cache/memory_store.h"
#include "tests/cpp/model_builder.h"

namespace fs = std::filesystem;
using namespace msjit::server;

namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/msjit-cache-test-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string key(char c) { return std::string(64, c); }

}  // namespace

TEST_CASE("sha256Hex matches the standard test vector", "[cache]") {
  CHECK(sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(isDigest(sha256Hex("")));
  CHECK_FALSE(isDigest("../../etc/passwd"));
  CHECK_FALSE(isDigest(std::string(64, 'G')));
}

TEST_CASE("memory store evicts least recently used entries past its budget", "[cache]") {
  MemoryStore store(10);
  REQUIRE(store.put(key('a'), "aaaa"));
  REQUIRE(store.put(key('b'), "bbbb"));
  REQUIRE(store.get(key('a')));  // a is now the most recent
  REQUIRE(store.put(key('c'), "cccc"));
  CHECK(store.contains(key('a')));
  CHECK_FALSE(store.contains(key('b')));
  CHECK(store.contains(key('c')));
  CHECK(store.bytes() == 8);
  CHECK_FALSE(store.put(key('d'), std::string(11, 'd')));  // larger than the budget
}

TEST_CASE("disk store writes atomically and verifies content addresses", "[cache]") {
  TempDir dir;
  DiskStore store(dir.path + "/cas", ".so", /*content_addressed=*/true);
  std::string bytes = "artifact bytes";
  std::string digest = sha256Hex(bytes);
  CHECK_FALSE(store.put(key('a'), bytes));  // wrong digest refused
  REQUIRE(store.put(digest, bytes));
  CHECK(store.get(digest) == bytes);
  CHECK(store.entries() == 1);
  CHECK_FALSE(store.put("not-a-digest", bytes));

  // No temp files remain after a put.
  for (const auto &f : fs::recursive_directory_iterator(dir.path))
    CHECK(f.path().filename().string().rfind(".tmp-", 0) != 0);

  // A corrupted file is detected and dropped, never served.
  std::ofstream(store.pathFor(digest), std::ios::binary | std::ios::trunc) << "tampered";
  CHECK_FALSE(store.get(digest));
  CHECK_FALSE(store.contains(digest));

  // Leftover temp files of an interrupted write are removed on start-up.
  std::string shard = dir.path + "/cas/" + digest.substr(0, 2);
  fs::create_directories(shard);
  std::ofstream(shard + "/.tmp-partial") << "half";
  DiskStore reopened(dir.path + "/cas", ".so", true);
  CHECK_FALSE(fs::exists(shard + "/.tmp-partial"));
  CHECK(reopened.entries() == 0);
}

TEST_CASE("artifact cache: memory, then disk after a restart", "[cache]") {
  TempDir dir;
  msjit::rpc::CompileReply reply;
  reply.add_inputs()->set_name("input0");
  {
    ArtifactCache cache(dir.path, 1 << 20);
    REQUIRE(cache.insert(key('e'), "\x7f" "ELF...", reply));
    CHECK(fs::exists(reply.artifact_path()));
    auto hit = cache.lookup(key('e'));
    REQUIRE(hit);
    CHECK(hit->hit() == msjit::rpc::TIER_MEMORY);
    CHECK(hit->inputs_size() == 1);
  }
  ArtifactCache restarted(dir.path, 1 << 20);
  auto hit = restarted.lookup(key('e'));
  REQUIRE(hit);
  CHECK(hit->hit() == msjit::rpc::TIER_DISK);
  CHECK(hit->artifact_path() == reply.artifact_path());
  CHECK(restarted.lookup(key('e'))->hit() == msjit::rpc::TIER_MEMORY);
  CHECK_FALSE(restarted.lookup(key('f')));

  // A corrupted artifact turns the entry into a miss on the next restart.
  std::ofstream(reply.artifact_path(), std::ios::trunc) << "garbage";
  ArtifactCache again(dir.path, 1 << 20);
  CHECK_FALSE(again.lookup(key('e')));
}

const msjit::server::CompilerIdentity kCompiler{"msjit-compiler-test", "x86_64-unknown-linux-gnu", "skylake", "+avx2"};

TEST_CASE("cache key is stable and depends on what changes the artifact", "[cache][key]") {
  msjit::rpc::CompileRequest a;
  *a.mutable_model() = msjit::testing::mulAddModel();
  a.mutable_options()->set_jit_level("O1");
  msjit::rpc::CompileRequest b = a;
  CHECK(cacheKey(a, kCompiler) == cacheKey(b, kCompiler));
  CHECK(isDigest(cacheKey(a, kCompiler)));

  // Source locations only change messages.
  b.mutable_model()->mutable_graph()->mutable_node(0)->mutable_location()->set_line(99);
  CHECK(cacheKey(a, kCompiler) == cacheKey(b, kCompiler));

  b.mutable_options()->set_jit_level("O0");
  CHECK(cacheKey(a, kCompiler) != cacheKey(b, kCompiler));

  msjit::rpc::CompileRequest c;
  *c.mutable_model() = msjit::testing::mulAddModel({3, 2});
  c.mutable_options()->set_jit_level("O1");
  CHECK(cacheKey(a, kCompiler) != cacheKey(c, kCompiler));
  msjit::server::CompilerIdentity other = kCompiler;
  other.cpu = "znver3";
  CHECK(cacheKey(a, kCompiler) != cacheKey(a, other));

  auto components = cacheKeyComponents(a, kCompiler);
  std::vector<std::string> names;
  for (const auto &[name, value] : components) names.push_back(name);
  CHECK(names == std::vector<std::string>{"cache_version", "compiler_version", "artifact_abi", "target_triple",
                                          "target_cpu", "target_features", "jit_level", "backend", "exec_order",
                                          "disable_format_transform", "infer_boost", "graph_sha256"});
}

TEST_CASE("disk tier evicts the least recently used entries past its budget", "[cache]") {
  TempDir dir;
  msjit::rpc::CompileReply reply;
  std::string artifact(3000, 'x');
  // Each entry is ~3 KB of artifact plus a small record: a 7 KB budget keeps two.
  ArtifactCache cache(dir.path, 1 << 20, 7000);
  auto insert = [&](char k, char fill) {
    msjit::rpc::CompileReply r;
    REQUIRE(cache.insert(key(k), std::string(3000, fill), r));
    return r;
  };
  auto first = insert('a', '1');
  insert('b', '2');
  // A hit refreshes 'a': with mtime resolution in mind, make the order unambiguous.
  std::filesystem::last_write_time(dir.path + "/ac/" + key('b').substr(0, 2) + "/" + key('b'),
                                   std::filesystem::file_time_type::clock::now() - std::chrono::seconds(60));
  REQUIRE(cache.lookup(key('a')));
  insert('c', '3');
  CHECK(cache.diskBytes() <= 7000);
  CHECK(cache.evictions() == 1);
  ArtifactCache reopened(dir.path, 1 << 20, 7000);
  CHECK(reopened.lookup(key('a')));
  CHECK_FALSE(reopened.lookup(key('b')));
  CHECK(reopened.lookup(key('c')));
  CHECK(std::filesystem::exists(first.artifact_path()));
}

TEST_CASE("a replaced artifact is quarantined on the next hit, never handed out", "[cache]") {
  TempDir dir;
  ArtifactCache cache(dir.path, 1 << 20);
  msjit::rpc::CompileReply reply;
  REQUIRE(cache.insert(key('e'), "the real artifact", reply));
  REQUIRE(cache.lookup(key('e'))->hit() == msjit::rpc::TIER_MEMORY);

  // Swapped in by rename, as an attacker with write access to the directory would.
  std::string swap = reply.artifact_path() + ".swap";
  std::ofstream(swap, std::ios::binary) << "a hijacked artifact";
  REQUIRE(std::rename(swap.c_str(), reply.artifact_path().c_str()) == 0);

  CHECK_FALSE(cache.lookup(key('e')));
  CHECK(cache.quarantined() == 1);
  CHECK_FALSE(fs::exists(reply.artifact_path()));
  CHECK(std::distance(fs::directory_iterator(dir.path + "/quarantine"), fs::directory_iterator()) == 1);

  // Storing it again (a recompile) serves the verified bytes.
  msjit::rpc::CompileReply again;
  REQUIRE(cache.insert(key('e'), "the real artifact", again));
  CHECK(cache.lookup(key('e')));
  CHECK(cache.verifyArtifact(again.artifact_digest()));
}

TEST_CASE("list shows the entries on disk, most recently used first, with their tiers", "[cache][admin]") {
  TempDir dir;
  ArtifactCache cache(dir.path, 1 << 20);
  msjit::rpc::CompileReply a, b;
  REQUIRE(cache.insert(key('a'), "artifact a", a));
  REQUIRE(cache.insert(key('b'), "artifact bb", b));
  fs::last_write_time(dir.path + "/ac/aa/" + key('a'), fs::file_time_type::clock::now() - std::chrono::seconds(60));
  auto listed = cache.list(0);
  REQUIRE(listed.size() == 2);
  CHECK(listed[0].key() == key('b'));
  CHECK(listed[0].artifact_digest() == b.artifact_digest());
  CHECK(listed[0].artifact_size() == 11);
  CHECK(listed[0].in_memory());
  CHECK(listed[0].on_disk());
  CHECK(listed[1].key() == key('a'));
  REQUIRE(cache.list(1).size() == 1);
  CHECK(cache.list(1)[0].key() == key('b'));

  // After a restart the entries are on disk only, until a hit promotes one.
  ArtifactCache restarted(dir.path, 1 << 20);
  CHECK_FALSE(restarted.list(0)[0].in_memory());
  REQUIRE(restarted.lookup(key('b')));
  CHECK(restarted.list(0)[0].in_memory());
  CHECK(ArtifactCache(dir.path + "/empty", 1 << 20).list(0).empty());
}

TEST_CASE("remove drops a key from both tiers; its artifact goes with the last entry naming it", "[cache][admin]") {
  TempDir dir;
  ArtifactCache cache(dir.path, 1 << 20);
  msjit::rpc::CompileReply a, b, c;
  // Two keys compiled to the same bytes share one content-addressed artifact.
  REQUIRE(cache.insert(key('a'), "same bytes", a));
  REQUIRE(cache.insert(key('b'), "same bytes", b));
  REQUIRE(cache.insert(key('c'), "other bytes", c));
  REQUIRE(a.artifact_path() == b.artifact_path());
  REQUIRE(cache.lookup(key('a'))->hit() == msjit::rpc::TIER_MEMORY);

  CHECK(cache.remove(key('a')));
  CHECK_FALSE(cache.lookup(key('a')));
  CHECK(fs::exists(a.artifact_path()));  // still named by b
  CHECK(cache.lookup(key('b')));
  CHECK_FALSE(cache.remove(key('a')));  // already gone
  CHECK(cache.diskEntries() == 2);

  CHECK(cache.remove(key('b')));
  CHECK_FALSE(fs::exists(b.artifact_path()));
  CHECK_FALSE(cache.lookup(key('b')));
  CHECK(fs::exists(c.artifact_path()));
  CHECK(cache.lookup(key('c')));
  CHECK(cache.list(0).size() == 1);
  CHECK(cache.diskBytes() == fs::file_size(dir.path + "/ac/cc/" + key('c')) + fs::file_size(c.artifact_path()));

  CHECK_FALSE(cache.remove("../../etc/passwd"));
  CHECK_FALSE(cache.remove(key('z')));

  // Removed for good: a restart does not bring it back, and a re-insert works.
  ArtifactCache restarted(dir.path, 1 << 20);
  CHECK_FALSE(restarted.lookup(key('a')));
  CHECK(restarted.lookup(key('c')));
  msjit::rpc::CompileReply again;
  REQUIRE(restarted.insert(key('a'), "same bytes", again));
  CHECK(restarted.lookup(key('a')));
}
