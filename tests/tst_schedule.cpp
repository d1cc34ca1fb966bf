// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The step schedule (docs/cost-model.md "Schedule"): hand-made FSDP prefetch, gradient reduce-scatters, a
// reduce-scatter feeding an all-gather and collectives that cannot be hidden, each with its exact times; the
// bounds and every ordering constraint on random steps, against an independent longest-path oracle; every
// unschedulable input refused with its exact message.
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <sstream>

#include "shardscope/cost/schedule.h"

using namespace shardscope;
using namespace shardscope::cost;

namespace {

ScheduledTransfer transfer(double duration, std::int32_t stream, std::int32_t readyAfter = -1,
                           std::int32_t issueAfter = -1, std::int32_t afterTransfer = -1) {
    return {duration, stream, readyAfter, issueAfter, afterTransfer};
}

Schedule scheduleOf(const Step& step) {
    auto result = simulate(step);
    if (!result)
        qFatal("%s", result.errorMessage().c_str());
    return std::move(result).value();
}

std::string describe(const Schedule& s) {
    std::ostringstream out;
    const auto list = [&](const char* name, const std::vector<double>& v) {
        out << name << " [";
        for (std::size_t i = 0; i < v.size(); ++i)
            out << (i ? ", " : "") << v[i];
        out << "] ";
    };
    list("kernelStart", s.kernelStart);
    list("kernelEnd", s.kernelEnd);
    list("transferStart", s.transferStart);
    list("transferEnd", s.transferEnd);
    list("streamBusy", s.streamBusy);
    out << "makespan " << s.makespan << " computeBusy " << s.computeBusy << " exposed "
        << s.exposedCommunication;
    return out.str();
}

// The first constraint of schedule.h or of the bounds that `s` breaks, or "".
std::string violation(const Step& step, const Schedule& s) {
    const std::size_t K = step.kernels.size(), T = step.transfers.size();
    const auto S = static_cast<std::size_t>(step.streams);
    if (s.kernelStart.size() != K || s.kernelEnd.size() != K || s.transferStart.size() != T ||
        s.transferEnd.size() != T || s.streamBusy.size() != S)
        return "sizes";
    double kernelSum = 0, transferSum = 0, lastEnd = 0;
    std::vector<double> busy(S, 0), streamFree(S, 0);
    for (std::size_t i = 0; i < K; ++i) {
        const auto& k = step.kernels[i];
        const std::string name = "kernel " + std::to_string(i);
        if (s.kernelEnd[i] != s.kernelStart[i] + k.duration)
            return name + " end";
        if (i > 0 && s.kernelStart[i] < s.kernelEnd[i - 1])
            return name + " overlaps its predecessor";
        for (const auto w : k.waitsFor)
            if (s.kernelStart[i] < s.transferEnd[w])
                return name + " starts before transfer " + std::to_string(w);
        kernelSum += k.duration;
        lastEnd = std::max(lastEnd, s.kernelEnd[i]);
    }
    for (std::size_t j = 0; j < T; ++j) {
        const auto& t = step.transfers[j];
        const std::string name = "transfer " + std::to_string(j);
        if (s.transferEnd[j] != s.transferStart[j] + t.duration)
            return name + " end";
        if (s.transferStart[j] < 0)
            return name + " starts before 0";
        if (t.readyAfter >= 0 && s.transferStart[j] < s.kernelEnd[t.readyAfter])
            return name + " before ready";
        if (t.issueAfter >= 0 && s.transferStart[j] < s.kernelStart[t.issueAfter])
            return name + " before issue";
        if (t.afterTransfer >= 0 && s.transferStart[j] < s.transferEnd[t.afterTransfer])
            return name + " before its afterTransfer";
        if (s.transferStart[j] < streamFree[t.stream])
            return name + " overlaps or overtakes on its stream";
        streamFree[t.stream] = s.transferEnd[j];
        busy[t.stream] += t.duration;
        transferSum += t.duration;
        lastEnd = std::max(lastEnd, s.transferEnd[j]);
    }
    if (s.streamBusy != busy)
        return "streamBusy";
    if (s.computeBusy != kernelSum)
        return "computeBusy";
    if (s.makespan != lastEnd)
        return "makespan is not the last end";
    if (s.exposedCommunication != s.makespan - s.computeBusy || s.exposedCommunication < 0)
        return "exposed";
    const double busiest = busy.empty() ? 0 : *std::max_element(busy.begin(), busy.end());
    if (s.makespan < std::max(kernelSum, busiest))
        return "below the lower bound";
    if (s.makespan > (kernelSum + transferSum) * (1 + 1e-12))
        return "above the upper bound";
    if (T == 0 && s.makespan != kernelSum)
        return "no transfers but makespan != compute";
    return {};
}

// An independent oracle: the earliest times as longest paths in the graph of start and end events (Kahn's
// algorithm), or nothing when the graph has a cycle.
std::optional<Schedule> longestPaths(const Step& step) {
    const std::size_t K = step.kernels.size(), T = step.transfers.size(), N = 2 * (K + T);
    const auto start = [&](std::size_t kernel) { return 2 * kernel; };
    const auto tstart = [&](std::size_t transfer) { return 2 * (K + transfer); };
    struct Edge {
        std::size_t to;
        double weight;
    };
    std::vector<std::vector<Edge>> out(N);
    std::vector<int> indegree(N, 0);
    const auto edge = [&](std::size_t from, std::size_t to, double weight) {
        out[from].push_back({to, weight});
        ++indegree[to];
    };
    std::vector<std::int32_t> lastOnStream(static_cast<std::size_t>(step.streams), -1);
    for (std::size_t i = 0; i < K; ++i) {
        edge(start(i), start(i) + 1, step.kernels[i].duration);
        if (i > 0)
            edge(start(i - 1) + 1, start(i), 0);
        for (const auto w : step.kernels[i].waitsFor)
            edge(tstart(w) + 1, start(i), 0);
    }
    for (std::size_t j = 0; j < T; ++j) {
        const auto& t = step.transfers[j];
        edge(tstart(j), tstart(j) + 1, t.duration);
        if (t.readyAfter >= 0)
            edge(start(t.readyAfter) + 1, tstart(j), 0);
        if (t.issueAfter >= 0)
            edge(start(t.issueAfter), tstart(j), 0);
        if (t.afterTransfer >= 0)
            edge(tstart(t.afterTransfer) + 1, tstart(j), 0);
        if (lastOnStream[t.stream] >= 0)
            edge(tstart(lastOnStream[t.stream]) + 1, tstart(j), 0);
        lastOnStream[t.stream] = static_cast<std::int32_t>(j);
    }
    std::vector<double> time(N, 0);
    std::vector<std::size_t> ready;
    for (std::size_t n = 0; n < N; ++n)
        if (indegree[n] == 0)
            ready.push_back(n);
    std::size_t done = 0;
    while (!ready.empty()) {
        const std::size_t n = ready.back();
        ready.pop_back();
        ++done;
        for (const auto& e : out[n]) {
            time[e.to] = std::max(time[e.to], time[n] + e.weight);
            if (--indegree[e.to] == 0)
                ready.push_back(e.to);
        }
    }
    if (done != N)
        return std::nullopt;
    Schedule s;
    for (std::size_t i = 0; i < K; ++i) {
        s.kernelStart.push_back(time[start(i)]);
        s.kernelEnd.push_back(time[start(i) + 1]);
        s.computeBusy += step.kernels[i].duration;
        s.makespan = std::max(s.makespan, s.kernelEnd.back());
    }
    s.streamBusy.assign(static_cast<std::size_t>(step.streams), 0);
    for (std::size_t j = 0; j < T; ++j) {
        s.transferStart.push_back(time[tstart(j)]);
        s.transferEnd.push_back(time[tstart(j) + 1]);
        s.streamBusy[step.transfers[j].stream] += step.transfers[j].duration;
        s.makespan = std::max(s.makespan, s.transferEnd.back());
    }
    s.exposedCommunication = s.makespan - s.computeBusy;
    return s;
}

double randomDuration(std::mt19937& rng) {
    // Whole numbers and zeros as well as fractions, so that ties between constraints happen.
    switch (std::uniform_int_distribution<int>(0, 3)(rng)) {
        case 0:
            return 0;
        case 1:
            return std::uniform_int_distribution<int>(1, 5)(rng);
        default:
            return std::uniform_real_distribution<double>(0, 10)(rng);
    }
}

// A schedulable step: transfers are issued in order of the last kernel they need, afterTransfer points to an
// earlier transfer and each transfer is waited for (if at all) by a kernel after everything it needs.
Step randomSchedulableStep(std::mt19937& rng) {
    const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    Step step;
    const int K = pick(0, 12), T = K == 0 ? pick(0, 6) : pick(0, 20);
    step.streams = pick(1, 4);
    for (int i = 0; i < K; ++i)
        step.kernels.push_back({randomDuration(rng), {}});
    std::vector<std::pair<int, ScheduledTransfer>> keyed;  // (last kernel needed + 1, transfer)
    for (int j = 0; j < T; ++j) {
        const int readyAfter = K == 0 ? -1 : pick(-1, K - 1), issueAfter = K == 0 ? -1 : pick(-1, K - 1);
        keyed.push_back({std::max(readyAfter, issueAfter) + 1,
                         transfer(randomDuration(rng), pick(0, step.streams - 1), readyAfter, issueAfter)});
    }
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<int> needs(keyed.size(), 0);  // the first kernel that may wait for it
    std::vector<int> streamNeeds(static_cast<std::size_t>(step.streams), 0);
    for (std::size_t j = 0; j < keyed.size(); ++j) {
        auto& t = keyed[j].second;
        if (j > 0 && pick(0, 2) == 0)
            t.afterTransfer = pick(0, static_cast<int>(j) - 1);
        needs[j] = std::max(
            {keyed[j].first, streamNeeds[t.stream], t.afterTransfer >= 0 ? needs[t.afterTransfer] : 0});
        streamNeeds[t.stream] = needs[j];
        step.transfers.push_back(t);
        if (needs[j] < K && pick(0, 3) != 0)
            step.kernels[pick(needs[j], K - 1)].waitsFor.push_back(static_cast<std::int32_t>(j));
    }
    return step;
}

// Any step whose indices and durations are in range; often unschedulable.
Step randomStep(std::mt19937& rng) {
    const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    Step step;
    const int K = pick(1, 6), T = pick(1, 6);
    step.streams = pick(1, 3);
    for (int i = 0; i < K; ++i) {
        step.kernels.push_back({randomDuration(rng), {}});
        for (int w = pick(0, 2); w > 0; --w)
            step.kernels.back().waitsFor.push_back(pick(0, T - 1));
    }
    for (int j = 0; j < T; ++j)
        step.transfers.push_back(transfer(randomDuration(rng), pick(0, step.streams - 1), pick(-1, K - 1),
                                          pick(0, 2) == 0 ? pick(-1, K - 1) : -1,
                                          pick(0, 3) == 0 ? pick(-1, T - 1) : -1));
    return step;
}

std::pair<std::string, std::string> errorOf(const Step& step) {
    auto result = simulate(step);
    if (result)
        return {"(scheduled)", describe(*result)};
    const auto& d = result.diagnostics().front();
    return {d.code, d.message};
}

// `layers` forward layers with the given durations, each waiting for its parameters' all-gather (duration
// `gather`, stream 0), which may be issued `prefetch` layers ahead (issueAfter = l − prefetch; 0 =
// unlimited).
Step fsdpForward(const std::vector<double>& layers, double gather, int prefetch) {
    Step step;
    step.streams = 1;
    for (std::size_t l = 0; l < layers.size(); ++l) {
        const int layer = static_cast<int>(l);
        step.kernels.push_back({layers[l], {layer}});
        step.transfers.push_back(
            transfer(gather, 0, -1, prefetch == 0 ? -1 : std::max(-1, layer - prefetch)));
    }
    return step;
}

using Times = std::vector<double>;

// One way to break a schedulable step (two kernels of 1, transfers of 1 on streams 0 and 1), and its error.
struct BrokenStep {
    const char* name;
    std::function<void(std::vector<ScheduledKernel>& k, std::vector<ScheduledTransfer>& t,
                       std::int32_t& streams)>
        breakStep;
    const char* code;
    const char* message;
};

const std::vector<BrokenStep>& brokenSteps() {
    using K = std::vector<ScheduledKernel>;
    using T = std::vector<ScheduledTransfer>;
    const auto cycle = [](int j, int before) {
        return "transfer " + std::to_string(j) + " waits for transfer " + std::to_string(before) +
               ", which cannot end before transfer " + std::to_string(j) +
               " starts (a cycle through afterTransfer and stream order)";
    };
    static const std::vector<std::string> cycles = {cycle(0, 0), cycle(1, 0), cycle(2, 1)};
    static const std::vector<BrokenStep> steps = {
        {"ready at its own end",
         [](K& k, T& t, auto&) {
             k[0].waitsFor = {0};
             t[0].readyAfter = 0;
         },
         "schedule.blocked", "kernel 0 waits for transfer 0, which is ready only at the end of kernel 0"},
        {"ready after a later kernel",
         [](K& k, T& t, auto&) {
             k[0].waitsFor = {0};
             t[0].readyAfter = 1;
         },
         "schedule.blocked", "kernel 0 waits for transfer 0, which is ready only at the end of kernel 1"},
        {"issued at its own start",
         [](K& k, T& t, auto&) {
             k[1].waitsFor = {0};
             t[0].issueAfter = 1;
         },
         "schedule.blocked", "kernel 1 waits for transfer 0, which is issued only at the start of kernel 1"},
        {"behind on its stream",
         [](K& k, T& t, auto&) {
             k[0].waitsFor = {1};
             t[0].readyAfter = 1;
             t[1].stream = 0;
         },
         "schedule.blocked",
         "kernel 0 waits for transfer 1, which comes after transfer 0 (by stream order or afterTransfer), "
         "which is ready only at the end of kernel 1"},
        {"behind an afterTransfer",
         [](K& k, T& t, auto&) {
             k[0].waitsFor = {1};
             t[0].readyAfter = 1;
             t[1].afterTransfer = 0;
         },
         "schedule.blocked",
         "kernel 0 waits for transfer 1, which comes after transfer 0 (by stream order or afterTransfer), "
         "which is ready only at the end of kernel 1"},
        {"after itself", [](K&, T& t, auto&) { t[0].afterTransfer = 0; }, "schedule.cycle",
         cycles[0].c_str()},
        {"after each other",
         [](K&, T& t, auto&) {
             t[0].afterTransfer = 1;
             t[1].afterTransfer = 0;
         },
         "schedule.cycle", cycles[1].c_str()},
        {"after each other through a stream",
         [](K& k, T& t, auto&) {
             t = {transfer(1, 0, -1, -1, 2), transfer(1, 0), transfer(1, 1, -1, -1, 1)};
             k[1].waitsFor = {0};
         },
         "schedule.cycle", cycles[2].c_str()},
        {"waits for a missing transfer",
         [](K& k, T&, auto&) {
             k[1].waitsFor = {0, 2};
         },
         "schedule.index", "kernel 1 waits for transfer 2, out of range (2 transfers)"},
        {"waits for transfer -1", [](K& k, T&, auto&) { k[0].waitsFor = {-1}; }, "schedule.index",
         "kernel 0 waits for transfer -1, out of range (2 transfers)"},
        {"readyAfter past the end", [](K&, T& t, auto&) { t[1].readyAfter = 2; }, "schedule.index",
         "transfer 1: readyAfter kernel 2 out of range (2 kernels)"},
        {"readyAfter -2", [](K&, T& t, auto&) { t[0].readyAfter = -2; }, "schedule.index",
         "transfer 0: readyAfter kernel -2 out of range (2 kernels)"},
        {"issueAfter past the end", [](K&, T& t, auto&) { t[1].issueAfter = 5; }, "schedule.index",
         "transfer 1: issueAfter kernel 5 out of range (2 kernels)"},
        {"afterTransfer past the end", [](K&, T& t, auto&) { t[0].afterTransfer = 2; }, "schedule.index",
         "transfer 0: afterTransfer 2 out of range (2 transfers)"},
        {"afterTransfer -2", [](K&, T& t, auto&) { t[1].afterTransfer = -2; }, "schedule.index",
         "transfer 1: afterTransfer -2 out of range (2 transfers)"},
        {"negative kernel", [](K& k, T&, auto&) { k[1].duration = -1; }, "schedule.duration",
         "kernel 1: duration -1 is negative or not finite"},
        {"NaN kernel", [](K& k, T&, auto&) { k[0].duration = std::numeric_limits<double>::quiet_NaN(); },
         "schedule.duration", "kernel 0: duration nan is negative or not finite"},
        {"infinite transfer",
         [](K&, T& t, auto&) { t[1].duration = std::numeric_limits<double>::infinity(); },
         "schedule.duration", "transfer 1: duration inf is negative or not finite"},
        {"negative transfer", [](K&, T& t, auto&) { t[0].duration = -0.5; }, "schedule.duration",
         "transfer 0: duration -0.5 is negative or not finite"},
        {"stream past the end", [](K&, T& t, auto&) { t[1].stream = 2; }, "schedule.stream",
         "transfer 1: stream 2 out of range (2 streams)"},
        {"stream -1", [](K&, T& t, auto&) { t[0].stream = -1; }, "schedule.stream",
         "transfer 0: stream -1 out of range (2 streams)"},
        {"negative stream count", [](K&, T&, std::int32_t& s) { s = -1; }, "schedule.stream",
         "the stream count -1 is not in [0, 1048576]"},
        {"too many streams", [](K&, T&, std::int32_t& s) { s = (1 << 20) + 1; }, "schedule.stream",
         "the stream count 1048577 is not in [0, 1048576]"},
    };
    return steps;
}

}  // namespace

class TestSchedule : public QObject {
    Q_OBJECT
private slots:
    // --- hand-made steps ---

    void withoutTransfersTheStepIsItsCompute() {
        Step step;
        step.kernels = {{3, {}}, {0, {}}, {4.5, {}}};
        const Schedule s = scheduleOf(step);
        QCOMPARE(s.kernelStart, (Times{0, 3, 3}));
        QCOMPARE(s.makespan, 7.5);
        QCOMPARE(s.computeBusy, 7.5);
        QCOMPARE(s.exposedCommunication, 0.0);
        QVERIFY(s.streamBusy.empty());

        const Schedule empty = scheduleOf(Step{});
        QCOMPARE(empty.makespan, 0.0);
    }

    void fsdpPrefetchHidesAllButTheFirstGather() {
        // Gathers of 6 behind layers of 10, one layer ahead: the first gather is exposed, the rest hidden,
        // and no gather starts before the previous layer does.
        const Step step = fsdpForward({10, 10, 10, 10}, 6, 1);
        const Schedule s = scheduleOf(step);
        QCOMPARE(s.transferStart, (Times{0, 6, 16, 26}));
        QCOMPARE(s.kernelStart, (Times{6, 16, 26, 36}));
        QCOMPARE(s.makespan, 46.0);
        QCOMPARE(s.exposedCommunication, 6.0);
        QCOMPARE(s.streamBusy, (Times{24}));
        QCOMPARE(violation(step, s), std::string());

        // Unlimited prefetch runs the gathers back to back (holding more buffers) for the same step time.
        const Schedule eager = scheduleOf(fsdpForward({10, 10, 10, 10}, 6, 0));
        QCOMPARE(eager.transferStart, (Times{0, 6, 12, 18}));
        QCOMPARE(eager.makespan, 46.0);
    }

    void deeperPrefetchHidesGathersBehindALongLayer() {
        // Layers 2, 20, 2, 2 and gathers of 8. One layer ahead, the gathers of layers 2 and 3 wait for the
        // long layer 1 to start and then expose themselves after it; two ahead, both hide behind it.
        const Schedule one = scheduleOf(fsdpForward({2, 20, 2, 2}, 8, 1));
        QCOMPARE(one.transferStart, (Times{0, 8, 16, 36}));
        QCOMPARE(one.kernelStart, (Times{8, 16, 36, 44}));
        QCOMPARE(one.makespan, 46.0);
        const Schedule two = scheduleOf(fsdpForward({2, 20, 2, 2}, 8, 2));
        QCOMPARE(two.transferStart, (Times{0, 8, 16, 24}));
        QCOMPARE(two.kernelStart, (Times{8, 16, 36, 38}));
        QCOMPARE(two.makespan, 40.0);
    }

    void slowGathersMakeTheStepBandwidthBound() {
        // Gathers of 15 behind layers of 10 cannot be hidden: the step is the busiest stream plus the last
        // layer.
        const Step step = fsdpForward({10, 10, 10, 10}, 15, 0);
        const Schedule s = scheduleOf(step);
        QCOMPARE(s.kernelStart, (Times{15, 30, 45, 60}));
        QCOMPARE(s.makespan, 70.0);
        QCOMPARE(s.exposedCommunication, 30.0);
        QCOMPARE(violation(step, s), std::string());
    }

    void gradientReduceScattersRunBehindLaterBackwardKernels() {
        // Four backward layers of 10, each producing a gradient reduce-scattered in 8: all but the last hide.
        Step step;
        step.streams = 1;
        for (int i = 0; i < 4; ++i) {
            step.kernels.push_back({10, {}});
            step.transfers.push_back(transfer(8, 0, i));
        }
        Schedule s = scheduleOf(step);
        QCOMPARE(s.transferStart, (Times{10, 20, 30, 40}));
        QCOMPARE(s.makespan, 48.0);
        QCOMPARE(s.exposedCommunication, 8.0);

        // Reduce-scatters of 12 queue up on their stream, in order.
        for (auto& t : step.transfers)
            t.duration = 12;
        s = scheduleOf(step);
        QCOMPARE(s.transferStart, (Times{10, 22, 34, 46}));
        QCOMPARE(s.makespan, 58.0);
        QCOMPARE(violation(step, s), std::string());
    }

    void aReduceScatterFeedsAnAllGatherOnAnotherStream() {
        // Kernel 0's gradient is reduce-scattered (stream 0), then the updated shard all-gathered (stream 1)
        // for kernel 2. Behind a kernel 1 of 10 the chain hides; behind one of 2 it exposes 6.
        Step step;
        step.streams = 2;
        step.kernels = {{10, {}}, {10, {}}, {10, {1}}};
        step.transfers = {transfer(5, 0, 0), transfer(5, 1, -1, -1, 0)};
        Schedule s = scheduleOf(step);
        QCOMPARE(s.transferStart, (Times{10, 15}));
        QCOMPARE(s.kernelStart, (Times{0, 10, 20}));
        QCOMPARE(s.exposedCommunication, 0.0);
        QCOMPARE(s.streamBusy, (Times{5, 5}));

        step.kernels[1].duration = 2;
        s = scheduleOf(step);
        QCOMPARE(s.kernelStart, (Times{0, 10, 20}));
        QCOMPARE(s.makespan, 30.0);
        QCOMPARE(s.exposedCommunication, 8.0);
    }

    void aTensorParallelAllReduceCannotBeHidden() {
        // Kernel 1 needs the all-reduce of kernel 0's partial result: the step is the upper bound, Σ of all.
        Step step;
        step.streams = 1;
        step.kernels = {{10, {}}, {10, {0}}};
        step.transfers = {transfer(7, 0, 0)};
        const Schedule s = scheduleOf(step);
        QCOMPARE(s.kernelStart, (Times{0, 17}));
        QCOMPARE(s.makespan, 27.0);
        QCOMPARE(s.exposedCommunication, 7.0);
    }

    void streamsRunInParallelAndEachKeepsItsOrder() {
        // Transfer 1 is ready at 0 but waits behind transfer 0 on stream 0; transfer 2 runs at once on
        // stream 1.
        Step step;
        step.streams = 2;
        step.kernels = {{10, {}}, {1, {1}}};
        step.transfers = {transfer(5, 0, 0), transfer(5, 0), transfer(5, 1)};
        const Schedule s = scheduleOf(step);
        QCOMPARE(s.transferStart, (Times{10, 15, 0}));
        QCOMPARE(s.kernelStart, (Times{0, 20}));
        QCOMPARE(s.makespan, 21.0);
        QCOMPARE(s.streamBusy, (Times{10, 5}));
    }

    void longChainsNeedNoRecursion() {
        // Transfer j waits for transfer j+1, each on its own stream: 200000 transfers deep.
        const int n = 200000;
        Step step;
        step.streams = n;
        step.kernels = {{1, {0}}};
        for (int j = 0; j < n; ++j)
            step.transfers.push_back(transfer(1, j, -1, -1, j + 1 < n ? j + 1 : -1));
        const Schedule s = scheduleOf(step);
        QCOMPARE(s.transferStart[0], n - 1.0);
        QCOMPARE(s.kernelStart[0], double(n));
        QCOMPARE(s.makespan, n + 1.0);
    }

    // --- random steps ---

    void randomSchedulableStepsMeetTheBoundsAndTheOracle() {
        std::mt19937 rng(20240611);
        ScheduleSimulator simulator;  // reused across steps, as a search does
        Schedule s;
        for (int round = 0; round < 3000; ++round) {
            const Step step = randomSchedulableStep(rng);
            Diagnostic error;
            QVERIFY2(simulator.simulate(step, s, &error), error.message.c_str());
            const std::string broken = violation(step, s);
            QVERIFY2(broken.empty(), (std::to_string(round) + ": " + broken + "\n" + describe(s)).c_str());
            const auto expected = longestPaths(step);
            QVERIFY(expected);
            QVERIFY2(s == *expected, (describe(s) + "\n" + describe(*expected)).c_str());
        }
    }

    void randomStepsAreScheduledExactlyWhenAcyclic() {
        std::mt19937 rng(7);
        ScheduleSimulator simulator;
        Schedule s;
        int scheduled = 0, refused = 0;
        for (int round = 0; round < 5000; ++round) {
            const Step step = randomStep(rng);
            const auto expected = longestPaths(step);
            Diagnostic error;
            const bool ok = simulator.simulate(step, s, &error);
            QVERIFY2(ok == expected.has_value(), (std::to_string(round) + ": " + error.message).c_str());
            if (ok) {
                ++scheduled;
                QCOMPARE(violation(step, s), std::string());
                QVERIFY2(s == *expected, (describe(s) + "\n" + describe(*expected)).c_str());
            } else {
                ++refused;
                QVERIFY(error.code == "schedule.blocked" || error.code == "schedule.cycle");
                QCOMPARE(error.severity, Severity::Error);
            }
        }
        QVERIFY(scheduled > 500 && refused > 500);  // both sides exercised
    }

    // --- unschedulable steps ---

    void unschedulableStepsAreRefusedWithTheirMessage_data() {
        QTest::addColumn<int>("which");
        for (std::size_t i = 0; i < brokenSteps().size(); ++i)
            QTest::newRow(brokenSteps()[i].name) << static_cast<int>(i);
    }
    void unschedulableStepsAreRefusedWithTheirMessage() {
        QFETCH(int, which);
        const BrokenStep& broken = brokenSteps()[static_cast<std::size_t>(which)];
        // Two kernels and two transfers on two streams, schedulable, broken one way per row.
        Step step;
        step.streams = 2;
        step.kernels = {{1, {}}, {1, {}}};
        step.transfers = {transfer(1, 0), transfer(1, 1)};
        QCOMPARE(errorOf(step).first, std::string("(scheduled)"));
        broken.breakStep(step.kernels, step.transfers, step.streams);
        const auto [code, message] = errorOf(step);
        QCOMPARE(code, std::string(broken.code));
        QCOMPARE(message, std::string(broken.message));
    }

    void aSimulatorRecoversAfterARefusal() {
        // A refused step leaves no state behind: the next step schedules as in a fresh simulator.
        std::mt19937 rng(99);
        ScheduleSimulator simulator;
        Schedule s;
        for (int round = 0; round < 500; ++round) {
            const Step bad = randomStep(rng);
            simulator.simulate(bad, s);
            const Step good = randomSchedulableStep(rng);
            QVERIFY(simulator.simulate(good, s));
            QVERIFY(s == scheduleOf(good));
        }
    }
};

QTEST_APPLESS_MAIN(TestSchedule)
#include "tst_schedule.moc"
