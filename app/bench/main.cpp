// shardscope-bench: timings of the engine's stages on zoo models. Each figure is the median of several runs;
// ratios are against copying the same graph in the same run (a memory-bound baseline).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "shardscope/ir/printer.h"
#include "shardscope/ir/statistics.h"
#include "shardscope/ir/verifier.h"
#include "shardscope/zoo/zoo.h"

namespace {

double medianSeconds(int runs, const std::function<void()>& work) {
    std::vector<double> times;
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        work();
        times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    int runs = 7;
    std::vector<std::string> models{"gpt2-small", "llama3-8b", "mixtral-8x7b", "gpt3-175b", "llama3-70b"};
    if (argc > 1) models.assign(argv + 1, argv + argc);
    if (const char* r = std::getenv("SHARDSCOPE_BENCH_RUNS")) runs = std::max(1, std::atoi(r));

    std::printf("median of %d runs; x copy = time / time to copy the same graph\n\n", runs);
    std::printf("%-14s %7s | %9s %9s | %9s %6s | %9s %6s | %9s %6s | %9s\n", "model", "ops", "copy ms", "build ms",
                "verify ms", "x copy", "stats ms", "x copy", "print ms", "x copy", "Mops/s build");
    for (const auto& name : models) {
        auto spec = shardscope::zoo::parseModelSpec(name);
        if (!spec) {
            std::fprintf(stderr, "%s\n", spec.errorMessage().c_str());
            return 1;
        }
        auto graph = shardscope::zoo::build(*spec);
        if (!graph) {
            std::fprintf(stderr, "%s\n", graph.errorMessage().c_str());
            return 1;
        }
        const auto& g = *graph;
        std::size_t sink = 0;
        const double copy = medianSeconds(runs, [&] {
            shardscope::ir::Graph copied = g;
            sink += copied.ops.size();
        });
        const double build = medianSeconds(runs, [&] { sink += shardscope::zoo::build(*spec)->ops.size(); });
        const double verify = medianSeconds(runs, [&] { sink += shardscope::ir::verify(g).size(); });
        const double stats = medianSeconds(runs, [&] { sink += shardscope::ir::computeStatistics(g).opCount; });
        const double print = medianSeconds(runs, [&] { sink += shardscope::ir::printStableHlo(g).size(); });
        std::printf("%-14s %7zu | %9.2f %9.2f | %9.2f %6.1f | %9.2f %6.1f | %9.2f %6.1f | %9.2f\n", name.c_str(),
                    g.ops.size(), copy * 1e3, build * 1e3, verify * 1e3, verify / copy, stats * 1e3, stats / copy,
                    print * 1e3, print / copy, static_cast<double>(g.ops.size()) / build / 1e6);
        if (sink == 0) std::puts("");
    }
    return 0;
}
