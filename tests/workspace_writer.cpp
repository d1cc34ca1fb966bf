// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// A process that writes a workspace until it is killed, for tst_workspace's crash test.
//
//   workspace_writer FILE    creates FILE with one session, then saves plans and tree nodes in a loop with a
//                            short flush interval; after every successful flush() it prints "flushed N" (N =
//                            the plans saved so far, all of them now on disk). Stops by itself after a
//                            minute, so a test that dies first does not leave it running.
#include <chrono>
#include <cstdio>
#include <string>

#include "shardscope/store/workspace.h"

using namespace shardscope;
using namespace shardscope::store;

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: workspace_writer FILE\n");
        return 2;
    }
    auto workspace = Workspace::create(argv[1], ModelRecord{"zoo:demo", {}, {}, "{}"});
    if (!workspace) {
        std::fprintf(stderr, "%s\n", workspace.errorMessage().c_str());
        return 1;
    }
    auto session = workspace->addSession("crash", R"({"mesh": "data=8"})");
    if (!session) {
        std::fprintf(stderr, "%s\n", session.errorMessage().c_str());
        return 1;
    }
    workspace->setFlushInterval(std::chrono::milliseconds(5));

    const std::string planJson =
        R"({"format": "shardscope-plan", "decisions": [)" + std::string(2000, ' ') + "]}";
    const auto start = std::chrono::steady_clock::now();
    std::int64_t saved = 0;
    std::int64_t node = 0;
    while (std::chrono::steady_clock::now() - start < std::chrono::minutes(1)) {
        for (int i = 0; i < 20; ++i) {
            PlanRecord plan;
            plan.session = *session;
            plan.plan = planJson;
            plan.evaluation = R"({"step_time": 1.5})";
            plan.iteration = saved;
            plan.origin = "search";
            const std::int64_t id = workspace->savePlan(std::move(plan));
            ++saved;
            workspace->saveNodes(*session, {TreeNodeRecord{node, node - 1, "shard", 1, 1.0, 1.0, id, ""},
                                            TreeNodeRecord{0, -1, "", saved, 2.0, 2.0, id, ""}});
            ++node;
        }
        if (auto flushed = workspace->flush(); !flushed) {
            std::fprintf(stderr, "%s\n", flushed.errorMessage().c_str());
            return 1;
        }
        std::printf("flushed %lld\n", static_cast<long long>(saved));
        std::fflush(stdout);
    }
    return 0;
}
