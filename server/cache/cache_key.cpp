#include "server/cache/cache_key.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "runtime/artifact_abi.h"
#include "server/cache/digest.h"
#include "spdlog/spdlog.h"

namespace msjit::server {
namespace {

std::string canonicalGraph(const mindir::ModelProto &model) {
  mindir::ModelProto canonical = model;
  canonical.clear_producer_name();
  canonical.clear_producer_version();
  for (auto &node : *canonical.mutable_graph()->mutable_node()) node.clear_location();
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    canonical.SerializeToCodedStream(&coded);
  }
  return bytes;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> cacheKeyComponents(const rpc::CompileRequest &request,
                                                                    const CompilerIdentity &compiler) {
  const auto &o = request.options();
  return {
      {"cache_version", std::to_string(kCacheVersion)},
      {"compiler_version", compiler.version},
      {"artifact_abi", std::to_string(MSJIT_ARTIFACT_ABI_VERSION)},
      {"target_triple", compiler.triple},
      {"target_cpu", compiler.cpu},
      {"target_features", compiler.features},
      {"jit_level", o.jit_level()},
      {"backend", o.backend()},
      {"exec_order", o.exec_order()},
      {"disable_format_transform", o.disable_format_transform() ? "1" : "0"},
      {"infer_boost", o.infer_boost()},
      {"graph_sha256", sha256Hex(canonicalGraph(request.model()))},
  };
}

std::string cacheKey(const rpc::CompileRequest &request, const CompilerIdentity &compiler) {
  std::string text;
  for (const auto &[name, value] : cacheKeyComponents(request, compiler)) {
    spdlog::debug("cache key component {}={}", name, value);
    text += name + "=" + value + "\n";
  }
  return sha256Hex(text);
}

}  // namespace msjit::server
