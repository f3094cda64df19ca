// The soak's churn and faults: models loaded, replaced and unloaded over and over, execution
// faults written for the simulator, and the monitor that scrapes and samples the RSS meanwhile.
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/bench/daemon_models.h"
#include "tests/bench/soak.h"

namespace neuronserve::bench::soak {

using ::neuronserve::testing::ProcessStatusBytes;

void Soak::LifecycleClient(int churn, std::mt19937& random) {
  const std::string name = ChurnName(churn);
  bool loaded = false;
  for (uint64_t n = 1; !Stopping(); ++n) {
    if (loaded && random() % 10 >= 7) {
      const grpc::Status status = UnloadModel(*stub_, name);
      loaded = !status.ok();
      ++(status.ok() ? unloads_ : failed_lifecycle_);
    } else {
      IdentityModel model{name, kRowBytes, 100, 1};
      model.version = absl::StrCat("v", options_.reuse_labels ? 1 + n % 4 : n);
      const grpc::Status status = LoadIdentityModel(*stub_, model);
      if (status.ok()) {
        loaded = true;
        ++loads_;
      } else {
        ++failed_lifecycle_;
        if (status.error_message().empty()) {
          absl::MutexLock lock(&problems_mutex_);
          problems_.push_back(absl::StrCat("loading '", name, "' failed without a message"));
        }
      }
    }
    absl::SleepFor(absl::Milliseconds(50 + random() % 250));
  }
}

void Soak::WriteFaults() {
  std::mt19937 random(options_.seed);
  const std::vector<std::string>& statuses = options_.fault_statuses;
  while (!Stopping() && !statuses.empty()) {
    std::string rules = absl::StrCat("nrt_execute:", statuses[random() % statuses.size()],
                                     ":after=", random() % 50, ":count=", 1 + random() % 3, "\n");
    if (random() % 5 == 0) absl::StrAppend(&rules, "nrt_load:NRT_RESOURCE:count=1\n");
    WriteFaultRules(rules);
    ++fault_files_;
    absl::SleepFor(absl::Milliseconds(200 + random() % 300));
  }
  WriteFaultRules("");
}

void Soak::WriteFaultRules(const std::string& rules) {
  const std::string temp = faults_file_ + ".tmp";
  FILE* file = std::fopen(temp.c_str(), "w");
  if (file == nullptr) return;
  std::fputs(rules.c_str(), file);
  std::fclose(file);
  std::rename(temp.c_str(), faults_file_.c_str());
}

void Soak::Monitor() {
  const absl::Time start = absl::Now();
  const absl::Time warm_at = start + std::min(options_.warm_rss_at, options_.duration / 2);
  absl::Time next_line = start + absl::Seconds(10);
  // The first scrape at once; then, as Prometheus would, every scrape_every (the series of
  // replaced versions are dropped at the scrape after the one that showed their final values).
  absl::Time next_scrape = start;
  while (!Stopping()) {
    if (absl::Now() >= next_scrape) {
      if (!Scrape().has_value()) {
        absl::MutexLock lock(&problems_mutex_);
        problems_.push_back("a scrape of /metrics failed during the traffic");
      }
      next_scrape = options_.scrape_every > absl::ZeroDuration()
                        ? next_scrape + options_.scrape_every
                        : absl::InfiniteFuture();
    }
    absl::SleepFor(std::min(absl::Seconds(1), stop_at_ - absl::Now()));
    CheckModelStates();
    const uint64_t rss = ProcessStatusBytes(daemon_->pid(), "VmRSS");
    if (!warm_rss_.has_value() && absl::Now() >= warm_at) warm_rss_ = rss;
    if (warm_rss_.has_value()) max_rss_after_warmup_ = std::max(max_rss_after_warmup_, rss);
    if (absl::Now() >= next_line) {
      std::printf("soak: %4.0f s  RSS %.1f MiB  loads %llu  unloads %llu  fault files %llu\n",
                  absl::ToDoubleSeconds(absl::Now() - start), rss / 1048576.0,
                  static_cast<unsigned long long>(loads_.load()),
                  static_cast<unsigned long long>(unloads_.load()),
                  static_cast<unsigned long long>(fault_files_.load()));
      std::fflush(stdout);
      next_line += absl::Seconds(10);
    }
  }
}

void Soak::CheckModelStates() {
  v1::ListModelsResponse list;
  grpc::ClientContext context;
  SetDeadline(context, kPatientDeadline);
  const grpc::Status status = stub_->ListModels(&context, v1::ListModelsRequest(), &list);
  absl::MutexLock lock(&problems_mutex_);
  if (!status.ok()) {
    problems_.push_back(absl::StrCat("ListModels failed, code ", status.error_code(), ": ",
                                     status.error_message()));
    return;
  }
  for (const v1::ModelStatus& model : list.models()) {
    if (model.state() == v1::MODEL_STATE_FAILED) {
      ++failed_models_seen_;
      if (model.error().empty()) {
        problems_.push_back(absl::StrCat("model '", model.name(), "' is FAILED without a message"));
      }
    }
  }
}

}  // namespace neuronserve::bench::soak
