// Every core for one frame: helper threads kept for the life of the process run jobs of a batch beside
// the calling thread. Starting threads, or handing work to a pool that allocates per task, on every frame
// would cost more than the work (a 640x480 frame is about a millisecond) and would allocate; this
// allocates once, when the helpers start. There is one helper fewer than the cores this process may run
// on (its affinity mask, as taskset sets it). Helpers spin a short while after each batch (a frame has a
// few batches some microseconds apart), then sleep until the next.
//
// A batch names how many workers it wants (the caller and helpers 1 ..< workers); the others let it
// pass. A batch belongs to one caller at a time: a second caller meanwhile (another detector thread) runs
// its jobs itself. Which thread runs which job is not fixed, so jobs must write only their own results.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <sched.h>
#include "markerkit_kernels.h"

namespace {
inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

// The batch's state in one word: generation << 16 | workers << 1 | open. A helper counts itself in
// `active` and only then checks the batch is still open: the caller closes the batch and then waits for
// `active` to reach 0, so (both in one sequentially consistent order) a helper either joined before the
// close and is waited for, or sees the close and runs nothing. Either way the caller cannot rewrite the
// batch's fields while a helper reads them.
constexpr uint64_t kOpen = 1;
constexpr int kWorkerBits = 15, kGenerationShift = 16;
constexpr int32_t kMaxThreads = 256;

inline uint64_t generation_of(uint64_t s) { return s >> kGenerationShift; }
inline int32_t workers_of(uint64_t s) { return int32_t((s >> 1) & ((1u << kWorkerBits) - 1)); }

// The cores the process may run on, read once; MARKERKIT_CORES (1-256) stands in for it, to run a larger
// machine's pool (its protocol, not its speed) on a small one.
int32_t cores_available() {
    static const int32_t cores = [] {
        if (const char *setting = std::getenv("MARKERKIT_CORES"); setting != nullptr && *setting != 0) {
            char *end = nullptr;
            const long n = std::strtol(setting, &end, 10);
            if (end != nullptr && *end == 0 && n >= 1 && n <= kMaxThreads) return int32_t(n);
        }
        cpu_set_t set;
        CPU_ZERO(&set);
        int32_t n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : int32_t(std::thread::hardware_concurrency());
        return std::clamp(n, 1, kMaxThreads);
    }();
    return cores;
}

struct Pool {
    const int32_t threads; // the caller and threads - 1 helpers
    std::mutex mutex;
    // Each helper sleeps on its own condition, so a batch wakes only the helpers it wants.
    struct Sleeper {
        std::condition_variable wake;
        bool sleeping = false; // under mutex
    };
    std::unique_ptr<Sleeper[]> sleepers;

    std::atomic<uint64_t> state{0};
    std::atomic<int32_t> active{0};  // helpers inside a batch (or checking whether to be)
    std::atomic<bool> owned{false};  // a caller has the pool
    std::atomic<int32_t> next{0};    // the next job to claim
    // Written by the caller before it opens a batch, read by helpers after they join.
    void (*job)(void *, int32_t, int32_t) = nullptr;
    void *context = nullptr;
    int32_t count = 0;

    explicit Pool(int32_t threads) : threads(threads), sleepers(new Sleeper[size_t(threads)]) {}

    void run_jobs(int32_t worker) {
        for (int32_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < count;) job(context, i, worker);
    }

    // An open batch this helper has not seen that wants it (helper id < the batch's workers). A batch for
    // fewer workers passes the others by: they neither wake nor start spinning again for it.
    static bool wanted(uint64_t s, uint64_t seen, int32_t id) {
        return (s & kOpen) && generation_of(s) != seen && id < workers_of(s);
    }

    [[noreturn]] void helper(int32_t id) {
        uint64_t seen = 0;
        Sleeper &self = sleepers[size_t(id)];
        for (;;) {
            // Spin about 200 us after the last batch this helper worked in, then sleep until one wants it.
            const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
            uint64_t s;
            for (int spins = 1;; ++spins) {
                s = state.load(std::memory_order_acquire);
                if (wanted(s, seen, id)) break;
                if (spins % 64 == 0 && std::chrono::steady_clock::now() > until) {
                    std::unique_lock<std::mutex> lock(mutex);
                    self.sleeping = true;
                    self.wake.wait(lock, [&] { return wanted(state.load(std::memory_order_acquire), seen, id); });
                    self.sleeping = false;
                    s = state.load(std::memory_order_acquire);
                    break;
                }
                relax();
            }
            seen = generation_of(s);
            active.fetch_add(1, std::memory_order_seq_cst);
            if (state.load(std::memory_order_seq_cst) == s) run_jobs(id);
            active.fetch_sub(1, std::memory_order_release);
        }
    }
};

std::atomic<int32_t> &limit_setting() {
    static std::atomic<int32_t> limit{[] {
        const char *setting = std::getenv("MARKERKIT_DETECTOR_THREADS");
        const int32_t cores = cores_available();
        if (setting == nullptr || *setting == 0) return cores;
        char *end = nullptr;
        const long n = std::strtol(setting, &end, 10);
        return (end == nullptr || *end != 0 || n < 1) ? cores : int32_t(std::min<long>(n, cores));
    }()};
    return limit;
}

Pool *start_pool() {
    const int32_t threads = cores_available();
    if (threads < 2) return nullptr;
    // Never destroyed: helpers may still be spinning or asleep on it while the process exits.
    Pool *pool = new Pool(threads);
    for (int32_t id = 1; id < threads; ++id) std::thread([pool, id] { pool->helper(id); }).detach();
    return pool;
}

Pool *pool() {
    static Pool *const shared = start_pool();
    return shared;
}
} // namespace

extern "C" int32_t mkk_parallel_threads(void) { return limit_setting().load(std::memory_order_relaxed); }

extern "C" int32_t mkk_parallel_cores(void) { return cores_available(); }

extern "C" int32_t mkk_parallel_set_threads(int32_t threads) {
    const int32_t n = std::clamp(threads, 1, cores_available());
    limit_setting().store(n, std::memory_order_relaxed);
    return n;
}

extern "C" void mkk_parallel_for(int32_t count, int32_t max_workers, void (*job)(void *context, int32_t index, int32_t worker), void *context) {
    int32_t workers = std::min({count, mkk_parallel_threads(), max_workers > 0 ? max_workers : kMaxThreads});
    Pool *p = workers > 1 ? pool() : nullptr;
    if (p != nullptr) workers = std::min(workers, p->threads);
    if (p == nullptr || workers < 2 || p->owned.exchange(true, std::memory_order_acquire)) {
        for (int32_t i = 0; i < count; ++i) job(context, i, 0);
        return;
    }
    p->job = job;
    p->context = context;
    p->count = count;
    p->next.store(0, std::memory_order_relaxed);
    const uint64_t generation = generation_of(p->state.load(std::memory_order_relaxed)) + 1;
    const uint64_t closed = generation << kGenerationShift | uint64_t(workers) << 1;
    p->state.store(closed | kOpen, std::memory_order_seq_cst);
    {
        std::lock_guard<std::mutex> lock(p->mutex);
        for (int32_t id = 1; id < workers; ++id)
            if (p->sleepers[size_t(id)].sleeping) p->sleepers[size_t(id)].wake.notify_one();
    }
    p->run_jobs(0);
    // Every job is claimed: close the batch, then wait for the helpers that joined it to finish theirs.
    p->state.store(closed, std::memory_order_seq_cst);
    for (int spins = 0; p->active.load(std::memory_order_seq_cst) != 0; ++spins) {
        if (spins < 4096) relax();
        else sched_yield();
    }
    p->owned.store(false, std::memory_order_release);
}
