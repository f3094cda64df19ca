// kill -9 at every step (issue 35): the real daemon with --state-dir on the simulator, killed by
// the test-only crash points (util/crash_point.h) at each named step of an upload, a
// replacement, an unload, a load of several replicas and a batcher holding a request; 50 rounds
// over the points (one test per point, so ctest runs them side by side), from a fixed seed.
//
// A round: start the daemon armed with NEURON_SERVE_TEST_CRASH_AT=<point>[@<n>] on the test's
// state directory (carried over from the previous round), run a seeded script of uploads (one
// model of one replica, one of two, one batched model of two variants and two replicas, each
// version an MLP whose weights its name and version pick), replacements by a new version,
// unloads and requests, noting which loads and unloads were acknowledged, until the daemon
// dies; check that it died of SIGKILL after the crash line. Then restart it unarmed on the same
// directory and check:
//   (a) the directory holds LOCK, models/<name>/record.json and the NEFFs the records name
//       (sizes and SHA-256 as recorded), nothing else: no temp file, no unreferenced NEFF, no
//       directory without a record (what the crash left before the restart is counted);
//   (b) every model listed is READY, restored from the state directory, and answers a request
//       as the MLP of its listed version does (computed here, not by the simulator);
//   (c) every acknowledged load is there with its version, or with the version whose load was in
//       flight at the crash; an acknowledged unload is not back; nothing else is there;
//   (d) nothing FAILED, and the restart logged no skipped or unreadable state.
// What the restart found becomes the next round's acknowledged state.
#include <signal.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "core/lifecycle/model_record.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "tests/e2e/daemon_process.h"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/support/sim_model_files.h"
#include "tests/support/temp_dir.h"
#include "util/crash_point.h"
#include "util/sha256.h"

namespace neuronserve::testing {
namespace crash_points_e2e_test {
namespace {

constexpr int kTotalRounds = 50;
constexpr uint64_t kSeed = 35'0003;
// A round whose script reaches no crash in this many operations fails.
constexpr int kMaxOperations = 60;
constexpr int64_t kIn = 4;
constexpr int64_t kHidden = 8;
constexpr int64_t kOut = 3;

// The models a script plays with; all `shared`, so that every replica fits on 4 cores.
struct Slot {
  const char* name;
  uint32_t replicas;
  bool batched;  // variants of batch 1 and 4, a batcher that holds a lone row for 10 ms
                 // (long enough that a loaded machine still holds it before it runs)
};
constexpr Slot kSlots[] = {{"plain", 1, false}, {"pair", 2, false}, {"batched", 2, true}};

const Slot* SlotNamed(const std::string& name) {
  for (const Slot& slot : kSlots) {
    if (name == slot.name) return &slot;
  }
  return nullptr;
}

// The MLP of a model's version: its weights are drawn from the name and the version, so an
// answer tells which version's NEFF served it.
simmodel::SimModel Mlp(const std::string& name, const std::string& version, int64_t batch) {
  uint64_t seed = 1469598103934665603ull;  // FNV-1a
  for (char c : name + "/" + version)
    seed = (seed ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  simmodel::MlpOptions options;
  options.layer_sizes = {kIn, kHidden, kOut};
  options.seed = seed;
  options.batch = batch;
  return MlpModel(options);
}

LoadResult UploadVersion(v1::NeuronServing::Stub& stub, const Slot& slot,
                         const std::string& version) {
  v1::ModelConfig config = Config(slot.name, version);
  config.set_replicas(slot.replicas);
  config.set_shared(true);
  if (!slot.batched) return Upload(stub, config, EncodeNeff(Mlp(slot.name, version, 1)));
  config.set_max_batch_size(4);
  config.mutable_dynamic_batching()->add_preferred_batch_size(4);
  config.mutable_dynamic_batching()->set_max_queue_delay_microseconds(10000);
  std::vector<v1::LoadModelRequest> requests(1);
  v1::LoadModelHeader& header = *requests.front().mutable_header();
  *header.mutable_config() = config;
  for (int64_t batch : {1, 4}) {
    const std::string neff = EncodeNeff(Mlp(slot.name, version, batch));
    v1::VariantUpload& variant = *header.add_variants();
    variant.set_batch_size(static_cast<uint32_t>(batch));
    variant.set_size(neff.size());
    variant.set_sha256(Sha256Hex(neff));
    requests.emplace_back().set_chunk(neff);
  }
  return SendLoadStream(stub, requests);
}

// One request of one row to the model: "" when it answers as the MLP of `version` does, else
// what went wrong (an RPC error starts with "rpc: ").
std::string CheckAnswer(v1::NeuronServing::Stub& stub, const std::string& name,
                        const std::string& version) {
  const std::vector<float> row = {0.5f, -1.25f, 2.0f, 0.75f};
  v1::InferRequest request;
  request.set_model(name);
  AddInput(request, "input", {1, static_cast<uint32_t>(kIn)}, row, TensorForm::kRaw);
  v1::InferResponse response;
  const grpc::Status status = Infer(stub, request, &response, absl::Seconds(20));
  if (!status.ok()) return absl::StrCat("rpc: ", status.error_message());
  if (response.outputs_size() != 1) return "not one output: " + response.DebugString();
  const std::vector<float> got = OutputValues(response.outputs(0));
  const std::vector<double> want = MlpReference(Mlp(name, version, 1), row, 2);
  bool same = got.size() == want.size();
  for (size_t i = 0; same && i < got.size(); ++i) {
    same = std::fabs(got[i] - want[i]) <= 1e-4 * (1 + std::fabs(want[i]));
  }
  if (same) return "";
  std::string text = absl::StrCat("model '", name, "' version '", version, "' answered");
  for (float value : got) absl::StrAppend(&text, " ", value);
  absl::StrAppend(&text, "; its MLP gives");
  for (double value : want) absl::StrAppend(&text, " ", value);
  return text;
}

// What is in a state directory.
struct DirAudit {
  std::map<std::string, std::string> records;  // model name -> recorded version
  // Leftovers a crash may leave and the next start must sweep.
  int temp_files = 0;
  int unreferenced_neffs = 0;
  int dirs_without_record = 0;
  // What no crash may leave: a record that does not parse, a NEFF it names missing or not as
  // recorded, anything the store does not make.
  std::vector<std::string> damage;

  int leftovers() const { return temp_files + unreferenced_neffs + dirs_without_record; }
};

DirAudit AuditStateDir(const std::string& dir) {
  namespace fs = std::filesystem;
  DirAudit audit;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (!((name == "LOCK" && entry.is_regular_file()) ||
          (name == "models" && entry.is_directory()))) {
      audit.damage.push_back("unexpected " + entry.path().string());
    }
  }
  if (error) audit.damage.push_back("cannot list " + dir + ": " + error.message());
  for (const fs::directory_entry& model_dir : fs::directory_iterator(dir + "/models", error)) {
    const std::string model = model_dir.path().filename().string();
    if (!model_dir.is_directory() || SlotNamed(model) == nullptr) {
      audit.damage.push_back("unexpected " + model_dir.path().string());
      continue;
    }
    const std::string record_path = model_dir.path().string() + "/" + kModelRecordFileName;
    std::vector<std::string> referenced;
    const bool has_record = fs::exists(record_path);
    if (!has_record) {
      ++audit.dirs_without_record;
    } else {
      absl::StatusOr<ModelRecord> record = ReadModelRecord(record_path);
      if (!record.ok()) {
        audit.damage.push_back(
            absl::StrCat("record ", record_path, ": ", record.status().message()));
        continue;
      }
      if (record->name != model) audit.damage.push_back(record_path + " names " + record->name);
      audit.records[model] = record->version;
      for (const RecordedNeff& neff : record->neffs) {
        referenced.push_back(neff.file);
        const std::string path = model_dir.path().string() + "/" + neff.file;
        const std::string bytes = fs::exists(path) ? ReadFileContents(path) : std::string();
        if (!fs::exists(path) || bytes.size() != neff.size || Sha256Hex(bytes) != neff.sha256) {
          audit.damage.push_back(
              absl::StrCat(path, " (named by ", record_path, ") is missing or not as recorded"));
        }
      }
    }
    for (const fs::directory_entry& file : fs::directory_iterator(model_dir.path(), error)) {
      const std::string file_name = file.path().filename().string();
      if (file_name == kModelRecordFileName && file.is_regular_file()) continue;
      if (!file.is_regular_file()) {
        audit.damage.push_back("unexpected " + file.path().string());
      } else if (absl::StartsWith(file_name, ".") && absl::EndsWith(file_name, ".tmp")) {
        ++audit.temp_files;
      } else if (IsNeffFileName(file_name)) {
        if (std::find(referenced.begin(), referenced.end(), file_name) == referenced.end()) {
          ++audit.unreferenced_neffs;
        }
      } else {
        audit.damage.push_back("unexpected " + file.path().string());
      }
    }
  }
  return audit;
}

// A started daemon that may die at any moment.
struct Daemon {
  std::unique_ptr<DaemonProcess> process;
  std::unique_ptr<v1::NeuronServing::Stub> stub;  // null when it never listened
};

Daemon Start(const std::string& state_dir, std::map<std::string, std::string> env) {
  env["NRTSIM_CORES"] = "4";
  Daemon daemon;
  daemon.process =
      std::make_unique<DaemonProcess>(SimDaemonArgs({"--state-dir=" + state_dir}, std::move(env)));
  const std::optional<std::string> address = daemon.process->WaitUntilListening(absl::Seconds(60));
  if (address.has_value()) {
    daemon.stub = v1::NeuronServing::NewStub(
        grpc::CreateChannel(*address, grpc::InsecureChannelCredentials()));
  }
  return daemon;
}

enum class Op { kLoad, kUnload, kInfer };

struct Totals {
  int rounds = 0;
  int damaged = 0;         // half or corrupt models, stray files, FAILED models, wrong answers
  int lost = 0;            // acknowledged loads missing or rolled back, acknowledged unloads back
  int during_restore = 0;  // rounds whose crash came while restoring the state directory
  int acknowledged = 0;    // loads and unloads acknowledged before the crashes
  DirAudit left;           // summed: what the crashes left for the restarts to sweep
};

// How a script leans, so that its point comes within a few operations: weights of replacing,
// unloading and querying a model that is loaded (one not loaded is loaded).
struct Lean {
  int replace;
  int unload;
  int infer;
  bool batched_first;
};

Lean LeanFor(const std::string& point) {
  if (point == kCrashStoreRecordRemoved || point == kCrashUnloadDeviceUnloaded) {
    return {3, 5, 2, false};
  }
  if (absl::StartsWith(point, "replace.")) return {6, 2, 2, false};
  if (point == kCrashBatcherHolding) return {2, 1, 7, true};
  return {4, 3, 3, false};
}

class CrashPointsE2ETest : public ::testing::TestWithParam<size_t> {};

TEST_P(CrashPointsE2ETest, AfterTheKillTheStateDirectoryHoldsOnlyWholeModelsAndLosesNoAck) {
  const size_t index = GetParam();
  const std::vector<absl::string_view> points(KnownCrashPoints().begin(), KnownCrashPoints().end());
  const std::string point(points[index]);
  const int rounds = static_cast<int>(kTotalRounds / points.size() +
                                      (index < kTotalRounds % points.size() ? 1 : 0));
  std::mt19937_64 random(kSeed + index);
  const Lean lean = LeanFor(point);
  const std::string crash_line =
      absl::StrCat("neuron-serve: crash point ", point, " reached (test hook): kill -9\n");

  TempDir temp;
  const std::string state_dir = temp.Join("state");
  std::map<std::string, std::string> acked;  // loaded models, acknowledged: name -> version
  int next_version = 1;
  Totals totals;
  const absl::Time started = absl::Now();

  for (int round = 0; round < rounds; ++round) {
    const uint64_t nth = round == 0 ? 1 : 1 + random() % 3;
    std::string script =
        absl::StrCat("round ", round, ", ", kCrashAtVariable, "=", point, "@", nth, ":");
    SCOPED_TRACE(script);

    // 1. Armed, until it dies.
    Daemon armed = Start(state_dir, {{kCrashAtVariable, absl::StrCat(point, "@", nth)}});
    Op in_flight_op = Op::kInfer;
    std::string in_flight_name;
    std::string in_flight_version;
    bool crashed = false;
    if (armed.stub == nullptr) {
      ++totals.during_restore;
      absl::StrAppend(&script, " (died restoring the state directory)");
      crashed = true;
    }
    for (int op = 0; !crashed && op < kMaxOperations; ++op) {
      const Slot& slot = lean.batched_first && random() % 3 != 0
                             ? kSlots[2]
                             : kSlots[random() % std::size(kSlots)];
      const std::string name = slot.name;
      Op chosen = Op::kLoad;
      if (acked.count(name) != 0) {
        const uint64_t pick = random() % (lean.replace + lean.unload + lean.infer);
        chosen = pick < static_cast<uint64_t>(lean.replace)                 ? Op::kLoad
                 : pick < static_cast<uint64_t>(lean.replace + lean.unload) ? Op::kUnload
                                                                            : Op::kInfer;
      }
      grpc::Status status;
      std::string version;
      if (chosen == Op::kLoad) {
        version = absl::StrCat("v", next_version++);
        absl::StrAppend(&script, acked.count(name) != 0 ? " replace " : " load ", name, "@",
                        version);
        status = UploadVersion(*armed.stub, slot, version).status;
      } else if (chosen == Op::kUnload) {
        absl::StrAppend(&script, " unload ", name);
        status = UnloadModel(*armed.stub, name);
      } else {
        absl::StrAppend(&script, " infer ", name);
        const std::string wrong = CheckAnswer(*armed.stub, name, acked[name]);
        if (!wrong.empty() && !absl::StartsWith(wrong, "rpc: ")) {
          ADD_FAILURE() << script << ": " << wrong;
          ++totals.damaged;
        }
        status = absl::StartsWith(wrong, "rpc: ")
                     ? grpc::Status(grpc::StatusCode::UNAVAILABLE, wrong)
                     : grpc::Status::OK;
      }
      if (status.ok()) {
        if (chosen == Op::kLoad) acked[name] = version;
        if (chosen == Op::kUnload) acked.erase(name);
        if (chosen != Op::kInfer) ++totals.acknowledged;
        continue;
      }
      // An error: the crash, or a bug the round reports.
      absl::StrAppend(&script, " [", status.error_message(), "]");
      in_flight_op = chosen;
      in_flight_name = name;
      in_flight_version = version;
      crashed = true;
    }
    const int exit_status = armed.process->WaitForExit(absl::Seconds(20));
    const std::string armed_log = armed.process->Stderr();
    ASSERT_TRUE(crashed) << script << ": no crash in " << kMaxOperations << " operations\n"
                         << armed_log;
    ASSERT_EQ(armed.process->TerminatingSignal(), SIGKILL)
        << script << ": exit status " << exit_status << "\n"
        << armed_log;
    size_t crash_lines = 0;
    for (size_t at = armed_log.find(crash_line); at != std::string::npos;
         at = armed_log.find(crash_line, at + 1)) {
      ++crash_lines;
    }
    ASSERT_EQ(crash_lines, 1u) << script << "\n" << armed_log;

    // 2. What the crash left.
    const DirAudit left = AuditStateDir(state_dir);
    EXPECT_THAT(left.damage, ::testing::IsEmpty()) << script << ", before the restart";
    totals.damaged += static_cast<int>(left.damage.size());
    totals.left.temp_files += left.temp_files;
    totals.left.unreferenced_neffs += left.unreferenced_neffs;
    totals.left.dirs_without_record += left.dirs_without_record;

    // 3. The restart.
    Daemon restarted = Start(state_dir, {});
    ASSERT_NE(restarted.stub, nullptr) << script << "\n" << restarted.process->Stderr();
    const v1::ListModelsResponse list = ListModels(*restarted.stub);
    const DirAudit after = AuditStateDir(state_dir);
    // (a)
    EXPECT_THAT(after.damage, ::testing::IsEmpty()) << script;
    EXPECT_EQ(after.leftovers(), 0)
        << script << ": " << after.temp_files << " temp files, " << after.unreferenced_neffs
        << " unreferenced NEFFs, " << after.dirs_without_record
        << " directories without a record after the restart";
    totals.damaged += static_cast<int>(after.damage.size()) + after.leftovers();
    // (b), (d)
    std::map<std::string, std::string> listed;
    for (const v1::ModelStatus& model : list.models()) {
      listed[model.name()] = model.version();
      const std::string wrong = CheckAnswer(*restarted.stub, model.name(), model.version());
      const bool whole = model.state() == v1::MODEL_STATE_READY && model.source() == "state" &&
                         wrong.empty() && after.records.count(model.name()) != 0 &&
                         after.records.at(model.name()) == model.version();
      EXPECT_TRUE(whole) << script << ": " << model.ShortDebugString() << " " << wrong;
      if (!whole) ++totals.damaged;
    }
    EXPECT_EQ(listed, after.records) << script << ": the models listed are not the records";
    const std::string restart_log = restarted.process->Stderr();
    for (const char* problem :
         {"model store: skipping", "in the state directory", "failed to load", "could not clean"}) {
      EXPECT_FALSE(absl::StrContains(restart_log, problem))
          << script << ": the restart logged '" << problem << "'\n"
          << restart_log;
      if (absl::StrContains(restart_log, problem)) ++totals.damaged;
    }
    // (c)
    for (const Slot& slot : kSlots) {
      const std::string name = slot.name;
      std::vector<std::optional<std::string>> allowed;
      allowed.push_back(acked.count(name) != 0 ? std::optional(acked[name]) : std::nullopt);
      if (name == in_flight_name && in_flight_op == Op::kLoad) allowed.push_back(in_flight_version);
      if (name == in_flight_name && in_flight_op == Op::kUnload) allowed.push_back(std::nullopt);
      const std::optional<std::string> found =
          listed.count(name) != 0 ? std::optional(listed[name]) : std::nullopt;
      const bool kept = std::find(allowed.begin(), allowed.end(), found) != allowed.end();
      EXPECT_TRUE(kept) << script << ": model '" << name << "' is "
                        << (found.has_value() ? "at version " + *found : std::string("absent"))
                        << " after the restart; acknowledged: "
                        << (acked.count(name) != 0 ? acked[name] : std::string("absent"));
      if (!kept) ++totals.lost;
    }
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << "the crashed daemon's log:\n"
                    << armed_log << "\nthe restart's log:\n"
                    << restart_log;
      return;
    }
    acked = listed;  // durable now: the next round's acknowledged state
    restarted.process->StopWith(SIGKILL);
    ++totals.rounds;
  }

  std::cout << "[ measured ] crash point " << point << ": " << totals.rounds << " rounds, "
            << totals.damaged << " half or corrupt models after restart, " << totals.lost
            << " acknowledged loads or unloads lost (of " << totals.acknowledged << "); "
            << totals.during_restore << " crashes while restoring the state directory; the "
            << "crashes left " << totals.left.temp_files << " temp files, "
            << totals.left.unreferenced_neffs << " unreferenced NEFFs and "
            << totals.left.dirs_without_record << " directories without a record, all swept ("
            << absl::FormatDuration(absl::Trunc(absl::Now() - started, absl::Milliseconds(1)))
            << ")\n";
}

INSTANTIATE_TEST_SUITE_P(Points, CrashPointsE2ETest,
                         ::testing::Range<size_t>(0, KnownCrashPoints().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return absl::StrReplaceAll(std::string(KnownCrashPoints()[info.param]),
                                                      {{".", "_"}, {"-", "_"}});
                         });

// A point the daemon does not know stops it at once, naming the variable and the known points:
// a typo in a test must not pass without a crash.
TEST(CrashPointHookE2ETest, AnUnknownCrashPointStopsTheDaemonAtStart) {
  TempDir temp;
  DaemonProcess daemon(SimDaemonArgs({"--state-dir=" + temp.Join("state")},
                                     {{kCrashAtVariable, "store.neff-durable@2"}}));
  EXPECT_EQ(daemon.WaitForExit(), 2) << daemon.Stderr();
  EXPECT_THAT(daemon.Stderr(),
              ::testing::HasSubstr("neuron-serve: environment variable "
                                   "NEURON_SERVE_TEST_CRASH_AT='store.neff-durable@2': unknown "
                                   "crash point 'store.neff-durable'"));
  EXPECT_THAT(daemon.Stderr(), ::testing::HasSubstr("store.neffs-durable"));
}

}  // namespace
}  // namespace crash_points_e2e_test
}  // namespace neuronserve::testing
