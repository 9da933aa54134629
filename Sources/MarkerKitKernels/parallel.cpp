// Two cores for one frame: a helper thread kept for the life of the process runs jobs of a batch beside
// the calling thread. Starting a thread, or handing work to a pool that allocates per task, on every
// frame would cost more than the work (a 640x480 frame is about a millisecond) and would allocate;
// this allocates once, when the helper starts. The helper spins a short while after each batch (a frame
// has two batches a few microseconds apart), then sleeps until the next.
//
// A batch belongs to one caller at a time: a second caller meanwhile (another detector thread) runs its
// jobs itself. Which thread runs which job is not fixed, so jobs must write only their own results.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <sched.h>
#include "bridge_status.h"
#include "markerkit_kernels.h"

namespace {
inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

// The batch's state in one word: generation << 2 | phase. The caller opens a batch (phase 0); the
// helper joins it (1) or, when the caller has run every job before the helper came, the caller closes
// it (2) and the helper never touches it. One word, so the helper cannot join a batch it did not see
// opened with all its fields written.
constexpr uint64_t kOpen = 0, kJoined = 1, kClosed = 2;

struct Pool {
    std::mutex mutex;
    std::condition_variable wake;
    bool sleeping = false; // under mutex

    std::atomic<uint64_t> state{kClosed};
    std::atomic<uint64_t> left{0};    // the last generation the helper finished
    std::atomic<bool> owned{false};   // a caller has the pool
    std::atomic<int32_t> next{0};     // the next job to claim
    // Written by the caller before it opens a batch, read by the helper after it joins.
    void (*job)(void *, int32_t, int32_t) = nullptr;
    void *context = nullptr;
    int32_t count = 0;

    void run_jobs(int32_t worker) {
        for (int32_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < count;) job(context, i, worker);
    }

    [[noreturn]] void helper() {
        uint64_t seen = 0;
        for (;;) {
            uint64_t s = state.load(std::memory_order_acquire);
            if ((s >> 2) == seen || (s & 3) != kOpen) {
                // Nothing to join: spin about 200 us, then sleep until a batch is opened.
                const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
                int spins = 0;
                for (;;) {
                    s = state.load(std::memory_order_acquire);
                    if ((s >> 2) != seen && (s & 3) == kOpen) break;
                    if (++spins % 64 == 0 && std::chrono::steady_clock::now() > until) {
                        std::unique_lock<std::mutex> lock(mutex);
                        sleeping = true;
                        wake.wait(lock, [&] {
                            const uint64_t t = state.load(std::memory_order_acquire);
                            return (t >> 2) != seen && (t & 3) == kOpen;
                        });
                        sleeping = false;
                        s = state.load(std::memory_order_acquire);
                        break;
                    }
                    relax();
                }
            }
            seen = s >> 2;
            if (!state.compare_exchange_strong(s, (s & ~uint64_t(3)) | kJoined, std::memory_order_acq_rel))
                continue; // closed by the caller, or a newer batch: look again
            run_jobs(1);
            left.store(seen, std::memory_order_release);
        }
    }
};

Pool *start_pool() {
    const char *setting = std::getenv("MARKERKIT_DETECTOR_THREADS");
    if (setting != nullptr && std::strcmp(setting, "1") == 0) return nullptr;
    if (std::thread::hardware_concurrency() < 2) return nullptr;
    // Never destroyed: the helper may still be spinning or asleep on it while the process exits.
    Pool *pool = new Pool;
    std::thread([pool] { pool->helper(); }).detach();
    return pool;
}

Pool *pool() {
    static Pool *const shared = start_pool();
    return shared;
}
} // namespace

extern "C" int32_t mkk_parallel_threads(void) { return pool() != nullptr ? 2 : 1; }

extern "C" void mkk_parallel_for(int32_t count, void (*job)(void *context, int32_t index, int32_t worker), void *context) {
    Pool *p = count > 1 ? pool() : nullptr;
    if (p == nullptr || p->owned.exchange(true, std::memory_order_acquire)) {
        for (int32_t i = 0; i < count; ++i) job(context, i, 0);
        return;
    }
    p->job = job;
    p->context = context;
    p->count = count;
    p->next.store(0, std::memory_order_relaxed);
    const uint64_t generation = (p->state.load(std::memory_order_relaxed) >> 2) + 1;
    uint64_t open = generation << 2 | kOpen;
    p->state.store(open, std::memory_order_release);
    {
        std::lock_guard<std::mutex> lock(p->mutex);
        if (p->sleeping) p->wake.notify_one();
    }
    p->run_jobs(0);
    // Every job is claimed. If the helper has not joined, close the batch; else wait for it to finish.
    if (!p->state.compare_exchange_strong(open, generation << 2 | kClosed, std::memory_order_acq_rel)) {
        for (int spins = 0; p->left.load(std::memory_order_acquire) != generation; ++spins) {
            if (spins < 4096) relax();
            else sched_yield();
        }
    }
    p->owned.store(false, std::memory_order_release);
}
