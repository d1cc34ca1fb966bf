// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/search/search.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <limits>
#include <mutex>
#include <random>
#include <set>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "shardscope/plan/experts.h"
#include "shardscope/plan/plan_json.h"

namespace shardscope::search {

using plan::Decision;
using plan::Plan;

namespace {

bool sameTargetAndAxis(const Decision& a, const Decision& b) {
    return a.target == b.target && a.index == b.index && a.axis == b.axis;
}

using cost::staged;

// A hash of the shardings a plan gives every atom, of the remat policy of every block, and of its
// microbatches and pipeline: equal plans reached in different orders hash alike. Blocks without recompute add
// nothing, and neither does a plan without microbatches or pipeline, so a plan without them or remat
// decisions hashes as its shardings alone.
std::uint64_t stateHash(const plan::AppliedPlan& applied, const Plan& plan, const plan::LayerBlocks& blocks) {
    constexpr std::uint64_t kPrime = 1099511628211ull;
    // The atoms' axes two to a word, over four independent lanes (one multiply chain is bound by its
    // latency), each step multiplying and folding the high half down, then the lanes mixed.
    std::array<std::uint64_t, 4> lanes{1469598103934665603ull, 0x9E3779B97F4A7C15ull, 0xC2B2AE3D27D4EB4Full,
                                       0x165667B19E3779F9ull};
    const auto& atoms = applied.atomAxes;
    std::size_t a = 0;
    for (; a + 8 <= atoms.size(); a += 8)
        for (std::size_t l = 0; l < 4; ++l) {
            const std::uint64_t word = atoms[a + 2 * l].bits() | std::uint64_t{atoms[a + 2 * l + 1].bits()}
                                                                     << 32;
            const std::uint64_t x = (lanes[l] ^ word) * 0x9E3779B97F4A7C15ull;
            lanes[l] = x ^ (x >> 32);
        }
    std::uint64_t h = atoms.size();
    for (; a < atoms.size(); ++a)
        h = (h ^ atoms[a].bits()) * kPrime;
    for (std::uint64_t lane : lanes)
        h = (h ^ lane ^ (lane >> 29)) * kPrime;
    if (staged(plan)) {
        auto mix = [&](std::uint64_t tag, std::int64_t value) {
            h = (h ^ (0xC2B2AE3D27D4EB4Full * tag + static_cast<std::uint64_t>(value))) * kPrime;
        };
        mix(1, plan.microbatches);
        if (const auto& p = plan.pipeline) {
            mix(2, p->axis);
            mix(3, p->stages);
            mix(4, static_cast<std::int64_t>(p->schedule));
            mix(5, p->virtualStages);
            for (int n : p->layersPerStage)
                mix(6, n);
        }
    }
    if (plan.remat.empty())
        return h;
    const auto policies = plan::rematPerBlock(blocks, plan.remat);
    for (std::size_t b = 0; b < policies.size(); ++b)
        if (policies[b] != plan::Remat::None)
            h = (h ^
                 (0x9E3779B97F4A7C15ull + b * plan::kRematCount + static_cast<std::uint64_t>(policies[b]))) *
                1099511628211ull;
    return h;
}

// Whether a remat decision of `plan` names `family` exactly.
bool namesFamily(const Plan& plan, const std::string& family) {
    return std::any_of(plan.remat.begin(), plan.remat.end(),
                       [&](const plan::RematDecision& r) { return r.target == family; });
}

}  // namespace

// -------------------------------------------------------------------------------------------------
// ActionSpace

ActionSpace::ActionSpace(const cost::CostModel& model, std::size_t maxGroups, double minShare,
                         Staging staging)
    : model_(&model), staging_(staging) {
    // Recomputing changes a training step only: without a backward pass nothing is kept for it.
    if (model.graph().backwardStart > 0)
        rematFamilies_ = model.planContext().blocks().families;
    const auto& space = model.space();
    const auto& context = model.planContext();
    batchSize_ = plan::batchSize(context);
    // The pipeline shapes: the schedules in rank order, each on every axis named for a pipeline (the user
    // marks the axis the layers may be split over, as Megatron's PP size does; offered on every axis they
    // made the searches of meshes without one markedly worse), stages descending; at most as many chunks as
    // layers.
    const std::size_t layers = context.pipelineLayers().size();
    if (staging == Staging::Pipelines && layers >= 2) {
        struct Schedule {
            plan::PipelineSchedule schedule;
            int virtualStages;
        };
        constexpr Schedule kSchedules[] = {{plan::PipelineSchedule::OneFOneB, 1},
                                           {plan::PipelineSchedule::Interleaved, 2}};
        const auto named = [&](std::size_t axis) {
            const std::string& n = model.mesh().axes[axis].name;
            return n == "pipe" || n == "pipeline" || n == "pp" || n == "stage" || n == "stages";
        };
        for (const auto& [schedule, virtualStages] : kSchedules)
            for (std::size_t axis = 0; axis < model.mesh().axes.size(); ++axis) {
                if (!named(axis))
                    continue;
                const std::int64_t size = model.mesh().axes[axis].size;
                for (std::int64_t p = size; p >= 2; --p) {
                    if (size % p != 0 || static_cast<std::size_t>(p * virtualStages) > layers)
                        continue;
                    plan::Pipeline pipeline;
                    pipeline.axis = static_cast<int>(axis);
                    pipeline.stages = static_cast<int>(p);
                    pipeline.schedule = schedule;
                    pipeline.virtualStages = virtualStages;
                    pipelines_.push_back(pipeline);
                }
            }
    }
    std::vector<std::pair<double, std::uint32_t>> ranked;
    for (std::size_t g = 0; g < space.groups.size(); ++g) {
        const auto& group = space.groups[g];
        if (group.names.empty() || space.name(group.names.front()).size < 2)
            continue;
        ranked.emplace_back(-group.bytes, static_cast<std::uint32_t>(g));
    }
    std::sort(ranked.begin(), ranked.end());
    const double largest = ranked.empty() ? 0 : -ranked.front().first;
    if (ranked.size() > maxGroups)
        ranked.resize(maxGroups);
    const plan::TensorClassMask zero1 =
        plan::maskOf(plan::TensorClass::OptimizerState) | plan::maskOf(plan::TensorClass::OptimizerUpdate);
    const plan::TensorClassMask zero2 = zero1 | plan::maskOf(plan::TensorClass::Gradient);
    for (const auto& [negBytes, g] : ranked) {
        const double bytes = -negBytes;
        if (bytes < minShare * largest)
            continue;
        bool parameters = false, states = false;
        for (auto n : space.groups[g].names)
            for (auto a : space.name(n).atoms) {
                const auto c = context.classes()[space.atom(a).value.index];
                parameters = parameters || c == plan::TensorClass::Parameter;
                states = states || c == plan::TensorClass::OptimizerState;
            }
        for (std::size_t axis = 0; axis < model.mesh().axes.size(); ++axis) {
            if (model.mesh().axes[axis].size < 2)
                continue;
            const Decision d{Decision::Target::Group, g, static_cast<int>(axis), plan::kAllTensorClasses};
            candidates_.push_back({d, bytes});
            if (parameters && states) {
                // ZeRO-1/2 style: only the optimizer states (and gradients) of what the group reaches.
                candidates_.push_back(
                    {Decision{Decision::Target::Group, g, static_cast<int>(axis), zero1}, bytes / 4});
                candidates_.push_back(
                    {Decision{Decision::Target::Group, g, static_cast<int>(axis), zero2}, bytes / 4});
            }
        }
    }
    repeated_.assign(space.names.size(), {});
    for (const auto& c : space.conflicts) {
        if (c.kind != analysis::ConflictKind::RepeatedName)
            continue;
        int most = 0;
        for (const auto& site : c.sites)
            most = std::max(most, static_cast<int>(site.dimensions.size()));
        repeated_[c.name.index] = {most};
    }
}

std::int64_t ActionSpace::effectiveSize(const Plan& plan, int axis) const {
    const std::int64_t size = model_->mesh().axes[static_cast<std::size_t>(axis)].size;
    if (plan.pipeline && plan.pipeline->axis == axis && plan.pipeline->stages > 0 &&
        size % plan.pipeline->stages == 0)
        return size / plan.pipeline->stages;
    return size;
}

std::vector<std::size_t> ActionSpace::legal(const Plan& plan) const {
    std::vector<std::size_t> out;
    const auto& space = model_->space();
    const auto batch = model_->planContext().batchGroup();
    constexpr plan::TensorClassMask activations = plan::maskOf(plan::TensorClass::Activation);
    for (std::size_t i = 0; i < candidates_.size(); ++i) {
        const Decision& d = candidates_[i].decision;
        bool ok = true;
        std::int64_t product = effectiveSize(plan, d.axis);
        if (product < 2)
            continue;  // the pipeline takes the whole axis: a decision there shards nothing
        for (const auto& taken : plan.decisions) {
            if (sameTargetAndAxis(taken, d))
                ok = false;
            if (taken.target == d.target && taken.index == d.index && (taken.tensors & d.tensors))
                product *= effectiveSize(plan, taken.axis);
        }
        for (const auto& f : plan.forbidden)
            if (sameTargetAndAxis(f, d))
                ok = false;
        const auto& group = space.groups[d.index];
        if (ok && space.name(group.names.front()).size % product != 0)
            ok = false;
        // The microbatches split what the batch decisions leave of the batch: it must stay divisible.
        if (ok && plan.microbatches > 1 && batch && d.index == batch->index && (d.tensors & activations) &&
            batchSize_ % (product * plan.microbatches) != 0)
            ok = false;
        if (ok)
            out.push_back(i);
    }
    return out;
}

std::int64_t ActionSpace::localBatch(const Plan& plan) const {
    return plan::localBatch(model_->planContext(), model_->mesh(), plan);
}

std::vector<Action> ActionSpace::pendingMicrobatches(const Plan& plan) const {
    if (staging_ != Staging::Pipelines || !plan.pipeline || plan.microbatches != 1)
        return {};
    const std::int64_t local = localBatch(plan);
    const std::int64_t stages = plan.pipeline->stages;
    const bool interleaved = plan.pipeline->schedule == plan::PipelineSchedule::Interleaved;
    std::vector<std::int64_t> counts;
    if (local >= stages && (!interleaved || local % stages == 0))
        counts.push_back(local);
    std::int64_t power = 1;
    while (power * 2 < local)
        power *= 2;
    for (; power >= stages && counts.size() < 4; power /= 2)
        if (local % power == 0 && (!interleaved || power % stages == 0))
            counts.push_back(power);
    std::vector<Action> out;
    for (std::int64_t m : counts) {
        Action action{Action::Kind::Microbatches, {}, {}, {}};
        action.microbatches = static_cast<int>(std::min<std::int64_t>(m, 1 << 30));
        if (!plan::pipelineProblem(model_->planContext(), model_->mesh(), withAction(plan, action)))
            out.push_back(action);
    }
    return out;
}

std::vector<Action> ActionSpace::stagingActions(const Plan& plan) const {
    std::vector<Action> out;
    if (staging_ == Staging::None || plan.pipeline || plan.microbatches != 1 || batchSize_ < 2)
        return out;
    for (const auto& pipeline : pipelines_) {
        Action action{Action::Kind::Pipeline, {}, {}, {}};
        action.pipeline = pipeline;
        if (!pendingMicrobatches(withAction(plan, action)).empty())
            out.push_back(action);
    }
    // Gradient accumulation: a few small counts and one example per microbatch.
    if (staging_ == Staging::None)
        return out;
    const std::int64_t local = localBatch(plan);
    const std::int64_t counts[] = {2, 4, 8, local};
    for (std::size_t k = 0; k < std::size(counts); ++k) {
        const std::int64_t m = counts[k];
        if (m < 2 || local % m != 0 || std::find(counts, counts + k, m) != counts + k)
            continue;
        Action action{Action::Kind::Microbatches, {}, {}, {}};
        action.microbatches = static_cast<int>(std::min<std::int64_t>(m, 1 << 30));
        if (!plan::pipelineProblem(model_->planContext(), model_->mesh(), withAction(plan, action)))
            out.push_back(action);
    }
    return out;
}

std::vector<Action> ActionSpace::pendingResolutions(const Plan& plan) const {
    if (plan.decisions.empty())
        return {};
    const auto& last = plan.decisions.back();
    const auto names = model_->planContext().namesOf(last);
    for (auto n : names) {
        if (repeated_[n.index].empty())
            continue;
        const bool resolved = std::any_of(plan.resolutions.begin(), plan.resolutions.end(),
                                          [&](const plan::Resolution& r) { return r.name == n; });
        if (resolved)
            continue;
        std::vector<Action> out;
        out.reserve(static_cast<std::size_t>(repeated_[n.index].front()));
        for (int k = 0; k < repeated_[n.index].front(); ++k)
            out.push_back({Action::Kind::Resolve, {}, {n, k}, {}});
        return out;
    }
    return {};
}

std::vector<Action> ActionSpace::rematActions(const Plan& plan) const {
    std::vector<Action> out;
    for (const auto& family : rematFamilies_) {
        if (namesFamily(plan, family))
            continue;
        for (int p = 0; p < plan::kRematCount; ++p)
            if (static_cast<plan::Remat>(p) != plan::Remat::None)
                out.push_back({Action::Kind::Remat, {}, {}, {family, static_cast<plan::Remat>(p)}});
    }
    return out;
}

std::string ActionSpace::describe(const Action& action) const {
    switch (action.kind) {
        case Action::Kind::Remat:
            return "remat " + plan::rematText(action.remat);
        case Action::Kind::Decide:
            return plan::decisionText(action.decision, model_->planContext(), model_->mesh());
        case Action::Kind::Resolve:
            return "resolve " + model_->space().name(action.resolution.name).label + ": dimension " +
                   std::to_string(action.resolution.dimension);
        case Action::Kind::Pipeline: {
            const auto& p = action.pipeline;
            std::string text = "pipeline " + model_->mesh().axes[static_cast<std::size_t>(p.axis)].name +
                               ": " + std::to_string(p.stages) + " stages, " +
                               std::string(plan::toString(p.schedule));
            if (p.virtualStages > 1)
                text += " x" + std::to_string(p.virtualStages);
            return text;
        }
        case Action::Kind::Microbatches:
            return "microbatches " + std::to_string(action.microbatches);
        case Action::Kind::Stop:
            return "stop";
    }
    return "?";
}

double reward(const cost::Evaluation& e, double lowerBound) {
    if (e.feasible)
        return 0.5 + 0.5 * (e.stepTime > 0 ? std::min(1.0, lowerBound / e.stepTime) : 1.0);
    const double fit = e.peakMemory > 0 ? std::min(1.0, e.capacity / e.peakMemory) : 1.0;
    return 0.5 * fit * fit;
}

Plan withAction(Plan plan, const Action& action) {
    if (action.kind == Action::Kind::Decide)
        plan.decisions.push_back(action.decision);
    if (action.kind == Action::Kind::Resolve)
        plan.resolutions.push_back(action.resolution);
    if (action.kind == Action::Kind::Remat) {
        std::erase_if(plan.remat,
                      [&](const plan::RematDecision& r) { return r.target == action.remat.target; });
        plan.remat.push_back(action.remat);
    }
    if (action.kind == Action::Kind::Pipeline)
        plan.pipeline = action.pipeline;
    if (action.kind == Action::Kind::Microbatches)
        plan.microbatches = action.microbatches;
    return plan;
}

std::optional<ExpertVariant> fittingRematVariant(
    const std::string& id, const cost::CostModel& model,
    const std::function<cost::Evaluation(const plan::Plan&)>& evaluate) {
    for (const auto& variant : plan::rematVariants(id, model.planContext())) {
        auto built = plan::expertPlan(variant, model.planContext(), model.mesh());
        if (!built)
            return std::nullopt;
        auto evaluation = evaluate(*built);
        if (evaluation.feasible)
            return ExpertVariant{variant, std::move(built).value(), std::move(evaluation)};
    }
    return std::nullopt;
}

namespace {

struct CacheEntry {
    double reward = 0;
};

// Evaluations shared by all threads: a transposition cache keyed by the shardings, the remat policies, the
// microbatches and the pipeline.
class Evaluations {
public:
    Evaluations(const cost::CostModel& model, const plan::LayerBlocks& blocks, std::size_t capacity)
        : model_(model), blocks_(blocks), lowerBound_(model.lowerBoundTime()), capacity_(capacity) {}

    // A plan's reward, the key it is cached under, and whether the cache held it.
    struct Price {
        double reward = 0;
        std::uint64_t key = 0;
        bool cached = false;
        bool fromLayerClasses = false;  // evaluated, from layer classes
    };
    // Looks `plan` up, else evaluates it; `fresh` is set to the evaluator's evaluation when this call
    // evaluated the plan (valid until the evaluator's next), else to null. The cache does not change until
    // commit(): plans priced at the same time (a round's lanes) see the same cache, whichever thread prices
    // them first.
    Price price(cost::Evaluator& evaluator, const Plan& plan, const cost::Evaluation*& fresh) const {
        fresh = nullptr;
        // The key is the evaluator's own applied plan (a pipelined plan's on its stage's mesh, where a
        // decision may divide what the whole mesh would not), which it then prices without applying the plan
        // again.
        auto applied = cost::appliedPlan(model_, plan);
        Price out;
        out.key = stateHash(applied, plan, blocks_);
        {
            std::lock_guard lock(mutex_);
            auto it = cache_.find(out.key);
            if (it != cache_.end()) {
                out.reward = it->second.reward;
                out.cached = true;
                return out;
            }
        }
        const cost::Evaluation& e = evaluator.evaluate(plan, std::move(applied));
        out.reward = reward(e, lowerBound_);
        out.fromLayerClasses = e.fromLayerClasses;
        fresh = &e;
        return out;
    }
    // Counts a price (a cache hit or an evaluation) and keeps a new one.
    void commit(const Price& price) {
        std::lock_guard lock(mutex_);
        if (price.cached) {
            ++hits_;
            return;
        }
        ++evaluations_;
        layerClassEvaluations_ += price.fromLayerClasses ? 1 : 0;
        if (cache_.size() < capacity_)
            cache_.emplace(price.key, CacheEntry{price.reward});
    }
    // price() and commit() at once.
    double evaluate(cost::Evaluator& evaluator, const Plan& plan, const cost::Evaluation*& fresh) {
        const Price p = price(evaluator, plan, fresh);
        commit(p);
        return p.reward;
    }
    std::uint64_t hashOf(const Plan& plan) const {
        return stateHash(cost::appliedPlan(model_, plan), plan, blocks_);
    }
    std::int64_t evaluations() const {
        std::lock_guard lock(mutex_);
        return evaluations_;
    }
    std::int64_t hits() const {
        std::lock_guard lock(mutex_);
        return hits_;
    }
    std::int64_t layerClassEvaluations() const {
        std::lock_guard lock(mutex_);
        return layerClassEvaluations_;
    }
    double lowerBound() const { return lowerBound_; }

private:
    const cost::CostModel& model_;
    const plan::LayerBlocks& blocks_;
    double lowerBound_;
    std::size_t capacity_;
    mutable std::mutex mutex_;
    std::unordered_map<std::uint64_t, CacheEntry> cache_;
    std::int64_t evaluations_ = 0, hits_ = 0, layerClassEvaluations_ = 0;
};

// Threads that run one function together as often as asked: run(f) calls f(t) on each helper thread (t = 1,
// 2, ...) and on the caller (t = 0), and returns when every call has returned. A round of the search prices
// its lanes' plans this way.
class Team {
public:
    // Starts `helpers` threads, or as many as the system gives.
    explicit Team(int helpers) {
        for (int t = 1; t <= helpers; ++t) {
            try {
                threads_.emplace_back([this, t] { serve(t); });
            } catch (const std::system_error&) {
                break;  // the system gives no more threads: work with those it gave
            }
        }
    }
    ~Team() {
        {
            std::lock_guard lock(mutex_);
            quit_ = true;
            generation_.fetch_add(1, std::memory_order_release);  // ends a helper's spinning at once
        }
        start_.notify_all();
        for (auto& thread : threads_)
            thread.join();
    }
    Team(const Team&) = delete;
    Team& operator=(const Team&) = delete;

    int size() const { return static_cast<int>(threads_.size()) + 1; }

    void run(const std::function<void(int)>& job) {
        running_.store(static_cast<int>(threads_.size()), std::memory_order_relaxed);
        {
            std::lock_guard lock(mutex_);
            job_ = &job;
            generation_.fetch_add(1, std::memory_order_release);
        }
        start_.notify_all();
        job(0);
        // The helpers' shares end about when this one's does: wait for them without sleeping.
        while (running_.load(std::memory_order_acquire) != 0)
            std::this_thread::yield();
    }

private:
    void serve(int t) {
        std::uint64_t seen = 0;
        while (true) {
            // Rounds follow one another closely: look for the next a while before sleeping.
            for (int spin = 0; spin < kSpins && generation_.load(std::memory_order_acquire) == seen; ++spin)
                std::this_thread::yield();
            const std::function<void(int)>* job = nullptr;
            {
                std::unique_lock lock(mutex_);
                start_.wait(lock,
                            [&] { return quit_ || generation_.load(std::memory_order_acquire) != seen; });
                if (quit_)
                    return;
                seen = generation_.load(std::memory_order_acquire);
                job = job_;
            }
            (*job)(t);
            running_.fetch_sub(1, std::memory_order_release);
        }
    }

    static constexpr int kSpins = 2000;
    std::vector<std::thread> threads_;
    std::mutex mutex_;
    std::condition_variable start_;
    const std::function<void(int)>* job_ = nullptr;  // guarded by mutex_
    std::atomic<std::uint64_t> generation_{0};
    std::atomic<int> running_{0};
    bool quit_ = false;
};

}  // namespace

// ------------------------------------------------------------------------------------------------------
// Search

struct Search::Impl {
    struct Node {
        std::int64_t parent = -1;
        Action action;
        int depth = 0;  // decisions taken after the pins
        std::vector<std::int64_t> children;
        std::vector<Action> untried;
        bool expanded = false, terminal = false, dirty = true;
        double visits = 0, valueSum = 0, best = 0;
        std::uint64_t hash = 0;
        std::string status;
    };

    const cost::CostModel& model;
    Plan start;
    SearchOptions options;
    ActionSpace actions;
    Evaluations evaluations;
    std::deque<Node> nodes;
    mutable std::mutex treeMutex, bestMutex, observerMutex;
    std::optional<Found> bestFound;
    std::atomic<bool> stopped{false}, paused{false}, exhausted{false};
    std::condition_variable pauseCondition;
    std::mutex pauseMutex;
    std::atomic<std::int64_t> iterations{0};
    std::int64_t lastImprovement = 0;
    std::size_t expertsSeeded = 0;  // seedExperts' progress through plan::expertPlans()
    bool startPriced = false;
    std::chrono::steady_clock::time_point runStart;
    std::int64_t runIterationsStart = 0;
    double lastProgress = 0;
    double low = 1e300, high = -1e300;       // rewards seen (under the tree lock)
    std::vector<std::string> rematFamilies;  // the families whose remat policy the search sets

    Impl(const cost::CostModel& m, Plan s, SearchOptions o)
        : model(m),
          start(std::move(s)),
          options(o),
          actions(m, o.maxGroups, 0.005, staged(start) ? Staging::None : o.staging),
          evaluations(m, actions.blocks(), o.maxCachedStates) {
        start.pinned = start.decisions.size();
        for (const auto& action : actions.rematActions(start))
            if (rematFamilies.empty() || rematFamilies.back() != action.remat.target)
                rematFamilies.push_back(action.remat.target);
        Node root;
        root.hash = evaluations.hashOf(start);
        nodes.push_back(std::move(root));
    }

    Plan planOf(std::int64_t id) const {
        std::vector<const Action*> path;
        for (std::int64_t n = id; n > 0; n = nodes[static_cast<std::size_t>(n)].parent)
            path.push_back(&nodes[static_cast<std::size_t>(n)].action);
        Plan plan = start;
        for (auto it = path.rbegin(); it != path.rend(); ++it)
            plan = withAction(std::move(plan), **it);
        return plan;
    }

    // What a state must take next, if anything: the resolutions its last decision calls for, else the
    // microbatches of its new pipeline.
    std::vector<Action> pending(const Plan& plan) const {
        auto resolutions = actions.pendingResolutions(plan);
        if (!resolutions.empty())
            return resolutions;
        return actions.pendingMicrobatches(plan);
    }

    // The actions of a state, in rank order: pending actions only, else pipeline and microbatch actions (the
    // coarsest choice: a node expands them first, so the tree reaches plans with a pipeline within its first
    // few dozen iterations even on models whose evaluations take a second), legal decisions, remat actions,
    // stop.
    std::vector<Action> actionsOf(const Plan& plan, int depth) const {
        auto must = pending(plan);
        if (!must.empty())
            return must;
        std::vector<Action> out = actions.stagingActions(plan);
        if (depth < options.maxDecisions)
            for (std::size_t i : actions.legal(plan))
                out.push_back({Action::Kind::Decide, actions.candidates()[i].decision, {}, {}});
        for (auto& remat : actions.rematActions(plan))
            out.push_back(std::move(remat));
        out.push_back({Action::Kind::Stop, {}, {}, {}});
        return out;
    }

    // A node's value for UCT, scaled to the range of rewards seen so far: rewards of small models differ in
    // the fourth decimal (T_lb/T is tiny when launches dominate), which a fixed exploration constant would
    // drown.
    double value(const Node& n) const {
        if (n.visits <= 0)
            return 0;
        const double v = options.maxBackup ? n.best : n.valueSum / n.visits;
        return high > low ? (v - low) / (high - low) : 0.5;
    }

    // Selection and expansion under the tree lock; returns the path (root first).
    std::vector<std::int64_t> select() {
        std::vector<std::int64_t> path{0};
        std::int64_t current = 0;
        while (true) {
            Node& node = nodes[static_cast<std::size_t>(current)];
            if (node.terminal)
                break;
            // A full tree grows no more: the walk ends at a leaf, whose rollout starts from its plan.
            const bool full = nodes.size() >= std::max<std::size_t>(1, options.maxTreeNodes);
            if (full && !node.expanded)
                break;
            if (!node.expanded) {
                node.untried = actionsOf(planOf(current), node.depth);
                std::reverse(node.untried.begin(),
                             node.untried.end());  // pop_back takes the best ranked first
                node.expanded = true;
            }
            bool created = false;
            while (!full && !node.untried.empty()) {
                const Action action = node.untried.back();
                node.untried.pop_back();
                Node child;
                child.parent = current;
                child.action = action;
                child.depth = node.depth + (action.kind == Action::Kind::Decide ? 1 : 0);
                if (action.kind == Action::Kind::Stop) {
                    child.terminal = true;
                    child.hash = node.hash;
                    child.status = "stop";
                } else {
                    child.hash = evaluations.hashOf(withAction(planOf(current), action));
                    // A decision that changes no sharding leads nowhere new.
                    if (action.kind == Action::Kind::Decide && child.hash == node.hash)
                        continue;
                }
                const std::int64_t id = static_cast<std::int64_t>(nodes.size());
                nodes[static_cast<std::size_t>(current)].children.push_back(id);
                nodes.push_back(std::move(child));
                path.push_back(id);
                created = true;
                break;
            }
            if (created)
                break;
            Node& parent = nodes[static_cast<std::size_t>(current)];
            // Every action tried and every child's subtree explored: so is this node's (a leaf without
            // actions too). Once the root's is, the search has nothing more to learn.
            const bool explored =
                parent.untried.empty() &&
                std::all_of(parent.children.begin(), parent.children.end(),
                            [&](std::int64_t c) { return nodes[static_cast<std::size_t>(c)].terminal; });
            if (explored) {
                parent.terminal = true;
                parent.dirty = true;
                break;
            }
            if (parent.children.empty())
                break;
            // UCT over the children (virtual losses count as visits with value 0). Virtual losses can push
            // every score below any bound, and a score may be NaN: the first child stands until one scores
            // higher.
            const double logN = std::log(std::max(1.0, parent.visits));
            std::int64_t chosen = parent.children.front();
            double bestScore = -std::numeric_limits<double>::infinity();
            for (std::int64_t c : parent.children) {
                const Node& child = nodes[static_cast<std::size_t>(c)];
                const double n = std::max(child.visits, 1e-9);
                const double score = value(child) + options.exploration * std::sqrt(logN / n);
                if (score > bestScore)
                    bestScore = score, chosen = c;
            }
            current = chosen;
            path.push_back(current);
        }
        for (auto id : path)
            nodes[static_cast<std::size_t>(id)].visits += options.virtualLoss;
        return path;
    }

    void backup(const std::vector<std::int64_t>& path, double r) {
        low = std::min(low, r);
        high = std::max(high, r);
        for (auto id : path) {
            Node& n = nodes[static_cast<std::size_t>(id)];
            n.visits += 1 - options.virtualLoss;
            n.valueSum += r;
            n.best = std::max(n.best, r);
            n.dirty = true;
        }
    }

    void offer(const Plan& plan, const cost::Evaluation& e, double r, const std::string& origin,
               SearchObserver* observer) {
        std::unique_lock lock(bestMutex);
        if (bestFound && r <= bestFound->reward)
            return;
        Found f;
        f.plan = plan;
        f.plan.label = origin;
        // An evaluation from layer classes has the step's figures only: the report gets the full one.
        f.evaluation = e.fromLayerClasses ? cost::evaluate(model, plan) : e;
        f.reward = r;
        f.iteration = iterations.load();
        f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - runStart).count();
        f.origin = origin;
        bestFound = f;
        lastImprovement = f.iteration;
        lock.unlock();
        if (observer) {
            std::lock_guard o(observerMutex);
            observer->newBest(f);
        }
    }

    // Evaluates `plan` through the cache and offers it when this call evaluated it; returns its reward.
    double price(cost::Evaluator& evaluator, const Plan& plan, const std::string& origin,
                 SearchObserver* observer) {
        const cost::Evaluation* fresh = nullptr;
        const double r = evaluations.evaluate(evaluator, plan, fresh);
        if (fresh)
            offer(plan, *fresh, r, origin, observer);
        return r;
    }

    // The expert's decisions after the pins, less the forbidden ones; its remat decisions for the families
    // the start plan leaves to the search; its pipeline and microbatches unless the start has its own.
    Plan seedPlan(const Plan& expert) const {
        Plan out = start;
        for (const auto& d : expert.decisions) {
            const bool forbidden = std::any_of(start.forbidden.begin(), start.forbidden.end(),
                                               [&](const Decision& f) { return sameTargetAndAxis(f, d); });
            if (!forbidden)
                out.decisions.push_back(d);
        }
        for (const auto& r : expert.remat)
            if (!namesFamily(start, r.target))
                out.remat.push_back(r);
        if (!staged(start)) {
            out.pipeline = expert.pipeline;
            out.microbatches = expert.microbatches;
        }
        return out;
    }

    // Whether the search may seed with `expert`: a pipeline or microbatches the search does not offer (a
    // start plan with its own, or options that leave them out) make it another plan than the expert's.
    bool seedable(const Plan& expert) const {
        if (expert.pipeline)
            return actions.staging() == Staging::Pipelines;
        return expert.microbatches == 1 || actions.staging() != Staging::None;
    }

    // Seeds: the expert plans (after the pins), each evaluated, and for one that does not fit its remat
    // variants in turn until one fits (plan::rematVariants); their paths enter the tree where they are made
    // of the search's own actions. A stop ends the seeding between two experts (a later run() seeds the
    // rest).
    void seedExperts(cost::Evaluator& evaluator, SearchObserver* observer) {
        // reward(): a feasible plan scores at least 0.5, an infeasible one less.
        constexpr double kFeasible = 0.5;
        const auto& experts = plan::expertPlans();
        for (; expertsSeeded < experts.size(); ++expertsSeeded) {
            if (stopped)
                return;
            const auto& expert = experts[expertsSeeded];
            // An expert that cannot be built here (a pipeline expert without a pipeline axis) is skipped.
            auto p = plan::expertPlan(expert.id, model.planContext(), model.mesh());
            if (!p || !seedable(*p))
                continue;
            if (seedExpert(evaluator, observer, seedPlan(*p), expert.id) >= kFeasible)
                continue;
            for (const auto& variant : plan::rematVariants(expert.id, model.planContext())) {
                auto v = plan::expertPlan(variant, model.planContext(), model.mesh());
                if (!v || seedExpert(evaluator, observer, seedPlan(*v), variant) >= kFeasible)
                    break;
            }
        }
    }

    // Evaluates one seed, offers it as "expert:ID" and grafts it into the tree. Returns the reward.
    double seedExpert(cost::Evaluator& evaluator, SearchObserver* observer, const Plan& seededPlan,
                      const std::string& id) {
        const double r = price(evaluator, seededPlan, "expert:" + id, observer);
        graft(seededPlan, r);
        return r;
    }

    // Walks the tree along the actions that make `target` (its pipeline and microbatches, ranked first as
    // actionsOf ranks them, its decisions after the pins, each followed by the resolutions it calls for, then
    // its remat decisions) while they are the tree's actions, creating the nodes missing, and backs `r` up
    // that path: selection then finds a seed or a refined plan where its own rollouts would.
    void graft(const Plan& target, double r) {
        std::vector<Action> steps;
        if (!staged(start) && target.pipeline) {
            Action action{Action::Kind::Pipeline, {}, {}, {}};
            action.pipeline = *target.pipeline;
            steps.push_back(action);
        }
        if (!staged(start) && target.microbatches != 1) {
            Action action{Action::Kind::Microbatches, {}, {}, {}};
            action.microbatches = target.microbatches;
            steps.push_back(action);
        }
        for (std::size_t k = start.decisions.size(); k < target.decisions.size(); ++k)
            steps.push_back({Action::Kind::Decide, target.decisions[k], {}, {}});
        for (std::size_t k = start.remat.size(); k < target.remat.size(); ++k)
            steps.push_back({Action::Kind::Remat, {}, {}, target.remat[k]});
        std::lock_guard lock(treeMutex);
        std::vector<std::int64_t> path{0};
        std::int64_t current = 0;
        // One step down along `want`; false when it is not an action of the current node.
        auto step = [&](const Action& want) {
            Node& node = nodes[static_cast<std::size_t>(current)];
            const bool decide = want.kind == Action::Kind::Decide;
            if (decide && node.depth >= options.maxDecisions)
                return false;
            if (!node.expanded) {
                node.untried = actionsOf(planOf(current), node.depth);
                std::reverse(node.untried.begin(), node.untried.end());
                node.expanded = true;
            }
            std::int64_t next = -1;
            for (auto c : node.children)
                if (nodes[static_cast<std::size_t>(c)].action == want)
                    next = c;
            if (next < 0) {
                auto it = std::find(node.untried.begin(), node.untried.end(), want);
                if (it == node.untried.end() ||
                    nodes.size() >= std::max<std::size_t>(1, options.maxTreeNodes))
                    return false;
                node.untried.erase(it);
                Node child;
                child.parent = current;
                child.action = want;
                child.depth = node.depth + (decide ? 1 : 0);
                child.hash = evaluations.hashOf(withAction(planOf(current), want));
                next = static_cast<std::int64_t>(nodes.size());
                nodes[static_cast<std::size_t>(current)].children.push_back(next);
                nodes.push_back(std::move(child));
            }
            current = next;
            path.push_back(current);
            return true;
        };
        for (const Action& want : steps) {
            if (!step(want))
                break;
            // The resolutions the decision calls for, as `target` resolves them.
            bool resolved = true;
            while (resolved) {
                const auto pendingResolutions = actions.pendingResolutions(planOf(current));
                if (pendingResolutions.empty())
                    break;
                auto it =
                    std::find_if(pendingResolutions.begin(), pendingResolutions.end(), [&](const Action& a) {
                        return std::find(target.resolutions.begin(), target.resolutions.end(),
                                         a.resolution) != target.resolutions.end();
                    });
                resolved = it != pendingResolutions.end() && step(*it);
            }
            if (!resolved)
                break;
        }
        for (auto node : path)
            nodes[static_cast<std::size_t>(node)].visits += options.virtualLoss;
        backup(path, r);
    }

    // One of `legal` (candidate indices, not empty), drawn in proportion to the candidates' weights.
    std::size_t drawWeighted(const std::vector<std::size_t>& legal, std::mt19937_64& random) const {
        double total = 0;
        for (auto i : legal)
            total += actions.candidates()[i].weight;
        double pick = std::uniform_real_distribution<double>(0, total)(random);
        for (auto i : legal)
            if ((pick -= actions.candidates()[i].weight) <= 0)
                return i;
        return legal.back();
    }

    // A random neighbour of `base` (a plan of this search: the pins, then its own decisions): one or two
    // moves among those that apply, each dropping one of its own decisions, moving one to another axis,
    // replacing one by another candidate, swapping two neighbours (the earlier takes an axis first where they
    // compete), adding a candidate (with the resolutions it calls for, drawn at random), setting a family's
    // remat policy anew, or setting the pipeline and microbatches anew. Only the tree's own actions are used,
    // so forbidden decisions stay out, the depth limit holds and a pinned pipeline is kept.
    std::optional<Plan> neighbourOf(Plan plan, std::mt19937_64& random) const {
        auto draw = [&](std::size_t n) { return static_cast<std::size_t>(random() % n); };
        enum class Move { Drop, ChangeAxis, Replace, Swap, Add, Remat, Staging };
        const std::size_t first = std::min(start.decisions.size(), plan.decisions.size());
        const std::size_t moves = draw(3) == 0 ? 2 : 1;
        bool changed = false;
        for (std::size_t m = 0; m < moves; ++m) {
            const std::size_t own = plan.decisions.size() - first;
            const auto legal = actions.legal(plan);
            std::vector<Move> applicable;
            if (own > 0)
                applicable.insert(applicable.end(), {Move::Drop, Move::ChangeAxis, Move::Replace});
            if (own > 1)
                applicable.push_back(Move::Swap);
            if (own < static_cast<std::size_t>(options.maxDecisions) && !legal.empty())
                applicable.push_back(Move::Add);
            if (!rematFamilies.empty())
                applicable.push_back(Move::Remat);
            if (actions.staging() != Staging::None)
                applicable.push_back(Move::Staging);
            if (applicable.empty())
                break;
            const Move move = applicable[draw(applicable.size())];
            const auto at = static_cast<std::ptrdiff_t>(first + (own > 0 ? draw(own) : 0));
            if (move == Move::Drop) {
                plan.decisions.erase(plan.decisions.begin() + at);
            } else if (move == Move::ChangeAxis || move == Move::Replace) {
                const Decision old = plan.decisions[static_cast<std::size_t>(at)];
                plan.decisions.erase(plan.decisions.begin() + at);
                auto others = actions.legal(plan);
                if (move == Move::ChangeAxis)
                    std::erase_if(others, [&](std::size_t i) {
                        const Decision& d = actions.candidates()[i].decision;
                        return d.target != old.target || d.index != old.index || d.tensors != old.tensors;
                    });
                plan.decisions.insert(
                    plan.decisions.begin() + at,
                    others.empty() ? old : actions.candidates()[drawWeighted(others, random)].decision);
            } else if (move == Move::Swap) {
                const auto other =
                    at + 1 < static_cast<std::ptrdiff_t>(plan.decisions.size()) ? at + 1 : at - 1;
                std::swap(plan.decisions[static_cast<std::size_t>(at)],
                          plan.decisions[static_cast<std::size_t>(other)]);
            } else if (move == Move::Add) {
                plan.decisions.push_back(actions.candidates()[drawWeighted(legal, random)].decision);
                for (auto must = actions.pendingResolutions(plan); !must.empty();
                     must = actions.pendingResolutions(plan))
                    plan = withAction(std::move(plan), must[draw(must.size())]);
            } else if (move == Move::Staging) {
                // The pipeline and microbatches set anew (with the microbatches a pipeline calls for), or
                // none.
                plan.pipeline.reset();
                plan.microbatches = 1;
                const auto offers = actions.stagingActions(plan);
                if (!offers.empty() && draw(offers.size() + 1) > 0) {
                    plan = withAction(std::move(plan), offers[draw(offers.size())]);
                    if (const auto must = actions.pendingMicrobatches(plan); !must.empty())
                        plan = withAction(std::move(plan), must[draw(must.size())]);
                }
            } else {
                // A family's policy set anew, or left to none.
                const std::string& family = rematFamilies[draw(rematFamilies.size())];
                std::erase_if(plan.remat, [&](const plan::RematDecision& r) { return r.target == family; });
                std::vector<Action> policies;
                for (auto& action : actions.rematActions(plan))
                    if (action.remat.target == family)
                        policies.push_back(std::move(action));
                if (!policies.empty() && draw(policies.size() + 1) > 0)
                    plan = withAction(std::move(plan), policies[draw(policies.size())]);
            }
            changed = true;
        }
        if (!changed)
            return std::nullopt;
        return plan;
    }

    // A walk of local refinement (an iterated local search): the plan it stands on, its reward, and the moves
    // since it last climbed. A free lane (one thread) has a walk of its own; the lanes of rounds share one:
    // each refining lane prices a neighbour of its plan, and it moves to those better than its plan in lane
    // order, so that it climbs per move as one thread's walk does.
    struct Walk {
        std::optional<Plan> plan;
        double reward = 0;
        int stalled = 0;
    };
    // Moves a walk makes without climbing before it starts again from the best plan, kicked by a few random
    // moves (kKickMoves rounds of neighbourOf), so that it leaves the best plan's basin.
    static constexpr int kWalkPatience = 40;
    static constexpr int kKickMoves = 3;

    // A lane: one line of the search, with its own random numbers; an iteration is its three steps (start,
    // work, finish). A free lane is one thread's, which iterates on its own (SearchOptions::lanes 0). With
    // lanes N the search runs in rounds that give each lane one iteration: the lanes start in order, work in
    // parallel, and finish in order. What a lane does then depends only on the seed, its index and the rounds
    // before it, so a search with an iteration budget is the same on any number of threads. One lane is the
    // search of one thread step by step.
    struct Lane {
        enum class Task : std::uint8_t { None, Tree, Refine };
        struct Priced {
            Plan plan;
            Evaluations::Price price;
            std::optional<cost::Evaluation> evaluation;  // kept when it may be a new best
        };
        std::mt19937_64 random;
        // This round's iteration.
        Task task = Task::None;
        std::vector<std::int64_t> path;  // Tree: the root to the leaf the rollout starts from
        bool terminal = false;
        int depth = 0;
        double bestReward = 0;       // the best plan's when the iteration began
        bool kicked = false;         // Refine: priced.front() is the walk's plan kicked
        std::vector<Priced> priced;  // the plans it prices this round, in order
    };
    std::vector<Lane> lanes;
    std::vector<Walk> walks;  // one per free lane, or one that the lanes of rounds share
    Walk& walkOf(const Lane& lane) {
        return walks.size() == 1 ? walks.front() : walks[static_cast<std::size_t>(&lane - lanes.data())];
    }

    // Local refinement, the round's first step: a neighbour of the walk's plan to price. A walk starts on the
    // best plan; one that stalled starts again on the best plan kicked, which the lane that restarts it also
    // prices (and the lanes after it in the round step from). False when there is nothing to refine (no plan
    // yet, or no move applies).
    bool startRefinement(Lane& lane) {
        Walk& walk = walkOf(lane);
        const bool restart = !walk.plan || walk.stalled >= kWalkPatience;
        lane.kicked = restart && walk.plan.has_value();  // a walk that stalled starts kicked
        {
            std::lock_guard lock(bestMutex);
            if (!bestFound)
                return false;
            lane.bestReward = bestFound->reward;
            if (restart) {
                walk = Walk{bestFound->plan, lane.bestReward, 0};
                walk.plan->label.clear();
            }
        }
        if (lane.kicked) {
            for (int k = 0; k < kKickMoves; ++k)
                if (auto kicked = neighbourOf(*walk.plan, lane.random))
                    walk.plan = std::move(kicked);
            lane.priced.push_back({*walk.plan, {}, {}});
        }
        auto neighbour = neighbourOf(*walk.plan, lane.random);
        if (!neighbour) {
            lane.priced.clear();
            return false;
        }
        lane.priced.push_back({std::move(*neighbour), {}, {}});
        return true;
    }

    // A walk of the tree, the round's first step (under the tree lock): selection and expansion. False when
    // the whole tree is explored.
    bool startTreeWalk(Lane& lane) {
        lane.path = select();
        const Node& leaf = nodes[static_cast<std::size_t>(lane.path.back())];
        lane.terminal = leaf.terminal;
        lane.depth = leaf.depth;
        if (lane.terminal && lane.path.size() == 1) {
            // The whole tree is explored: nothing more to learn.
            nodes[0].visits -= options.virtualLoss;
            return false;
        }
        lane.priced.push_back({planOf(lane.path.back()), {}, {}});
        return true;
    }

    // Rollout: random legal actions, weighted by rank, until stop or the depth limit. Now and then a remat
    // action instead (no random number is drawn for it where none is possible, as on a forward graph).
    void rollout(Plan& plan, int depth, std::mt19937_64& random) const {
        while (true) {
            auto must = pending(plan);
            if (!must.empty()) {
                plan = withAction(std::move(plan), must[random() % must.size()]);
                continue;
            }
            if (depth >= options.maxDecisions ||
                std::uniform_real_distribution<double>(0, 1)(random) < options.stopProbability)
                break;
            if (const auto remat = actions.rematActions(plan);
                !remat.empty() &&
                std::uniform_real_distribution<double>(0, 1)(random) < options.rematProbability) {
                plan = withAction(std::move(plan), remat[random() % remat.size()]);
                continue;
            }
            // (The list is built only when drawn: it checks every pipeline shape's microbatches.)
            if (actions.staging() != Staging::None && !staged(plan) &&
                std::uniform_real_distribution<double>(0, 1)(random) < options.stagingProbability) {
                if (const auto staging = actions.stagingActions(plan); !staging.empty()) {
                    plan = withAction(std::move(plan), staging[random() % staging.size()]);
                    continue;
                }
            }
            const auto legal = actions.legal(plan);
            if (legal.empty())
                break;
            plan.decisions.push_back(actions.candidates()[drawWeighted(legal, random)].decision);
            ++depth;
        }
    }

    // The round's second step, for one lane (on any thread): its rollout, and the prices of its plans. An
    // evaluation better than the best plan when the iteration began is kept for the third step to offer.
    void work(Lane& lane, cost::Evaluator& evaluator) {
        if (lane.task == Lane::Task::Tree && !lane.terminal)
            rollout(lane.priced.front().plan, lane.depth, lane.random);
        for (auto& priced : lane.priced) {
            const cost::Evaluation* fresh = nullptr;
            priced.price = evaluations.price(evaluator, priced.plan, fresh);
            if (fresh && priced.price.reward > lane.bestReward)
                priced.evaluation = *fresh;
        }
    }

    // The round's third step, for one lane (in lane order): its iteration counted, its prices committed, its
    // plans offered; a tree walk's reward backed up; a walk moved, and a refined plan better than the best
    // grafted.
    void finish(Lane& lane, SearchObserver* observer) {
        iterations.fetch_add(1);
        for (auto& priced : lane.priced) {
            evaluations.commit(priced.price);
            if (priced.evaluation)
                offer(priced.plan, *priced.evaluation, priced.price.reward, "search", observer);
        }
        if (lane.task == Lane::Task::Tree) {
            std::lock_guard lock(treeMutex);
            backup(lane.path, lane.priced.front().price.reward);
            return;
        }
        for (const auto& priced : lane.priced)
            if (priced.price.reward > lane.bestReward)
                graft(priced.plan, priced.price.reward);
        Walk& walk = walkOf(lane);
        for (std::size_t k = 0; k < lane.priced.size(); ++k) {
            auto& priced = lane.priced[k];
            const double r = priced.price.reward;
            if (lane.kicked && k == 0) {
                walk.plan = std::move(priced.plan);
                walk.reward = r;
            } else if (r > walk.reward) {
                walk.plan = std::move(priced.plan);
                walk.reward = r;
                walk.stalled = 0;
            } else {
                ++walk.stalled;
            }
        }
    }

    bool budgetLeft() {
        if (stopped)
            return false;
        const std::int64_t done = iterations.load() - runIterationsStart;
        if (options.budget.iterations > 0 && done >= options.budget.iterations)
            return false;
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - runStart).count();
        if (options.budget.seconds > 0 && seconds >= options.budget.seconds)
            return false;
        if (options.budget.patience > 0) {
            std::lock_guard lock(bestMutex);
            if (iterations.load() - std::max(lastImprovement, runIterationsStart) >= options.budget.patience)
                return false;
        }
        return true;
    }

    void report(SearchObserver* observer, bool force) {
        if (!observer)
            return;
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - runStart).count();
        std::lock_guard o(observerMutex);
        if (!force && seconds - lastProgress < 0.2)
            return;
        lastProgress = seconds;
        Progress p;
        p.iterations = iterations.load();
        p.evaluations = evaluations.evaluations();
        p.cacheHits = evaluations.hits();
        p.layerClassEvaluations = evaluations.layerClassEvaluations();
        p.seconds = seconds;
        p.exhausted = exhausted.load();
        {
            std::lock_guard lock(treeMutex);
            p.treeNodes = nodes.size();
        }
        {
            std::lock_guard lock(bestMutex);
            if (bestFound) {
                p.bestReward = bestFound->reward;
                p.bestStepTime = bestFound->evaluation.stepTime;
                p.bestPeakMemory = bestFound->evaluation.peakMemory;
                p.bestFeasible = bestFound->evaluation.feasible;
            }
        }
        observer->progress(p);
    }

    // The first step of a lane's iteration: refinement (now and then, when there is a plan to refine) or a
    // walk of the tree. False when the whole tree is explored.
    bool startIteration(Lane& lane) {
        lane.task = Lane::Task::None;
        lane.priced.clear();
        if (options.refineProbability > 0 &&
            std::uniform_real_distribution<double>(0, 1)(lane.random) < options.refineProbability &&
            startRefinement(lane)) {
            lane.task = Lane::Task::Refine;
            return true;
        }
        lane.bestReward = bestReward();
        std::lock_guard lock(treeMutex);
        if (!startTreeWalk(lane))
            return false;
        lane.task = Lane::Task::Tree;
        return true;
    }

    double bestReward() const {
        std::lock_guard lock(bestMutex);
        return bestFound ? bestFound->reward : -1;
    }

    // A free lane (SearchOptions::lanes 0): one thread's iterations, one after another, until the budget is
    // spent; the threads' lanes share the tree and the best plan under their locks.
    void runFree(Lane& lane, cost::Evaluator& evaluator, SearchObserver* observer) {
        while (budgetLeft()) {
            if (paused) {
                std::unique_lock lock(pauseMutex);
                pauseCondition.wait(lock, [&] { return !paused || stopped; });
                continue;
            }
            if (!startIteration(lane)) {
                exhausted = true;
                stopped = true;
                break;
            }
            work(lane, evaluator);
            finish(lane, observer);
            report(observer, false);
        }
    }

    // One round of lanes (SearchOptions::lanes N): each lane (up to the iterations the budget leaves) refines
    // or walks the tree, the team prices their plans, and the lanes finish in order. False when the tree is
    // explored.
    bool round(Team& team, std::vector<cost::Evaluator>& evaluators, SearchObserver* observer) {
        // No more lanes than the iterations the budget and the patience leave.
        std::int64_t left = static_cast<std::int64_t>(lanes.size());
        const std::int64_t done = iterations.load() - runIterationsStart;
        if (options.budget.iterations > 0)
            left = std::min(left, options.budget.iterations - done);
        if (options.budget.patience > 0) {
            std::lock_guard lock(bestMutex);
            left = std::min(left, options.budget.patience -
                                      (iterations.load() - std::max(lastImprovement, runIterationsStart)));
        }
        const auto count = static_cast<std::size_t>(std::max<std::int64_t>(left, 0));
        for (std::size_t k = 0; k < count; ++k) {
            lanes[k].task = Lane::Task::None;
            lanes[k].priced.clear();
        }
        // This thread takes the lanes' first steps in order while the team prices the lanes already started
        // (a lane is started once `started` passes it; the lanes from `last` on are not, when the tree turns
        // out explored).
        bool explored = false;
        std::atomic<std::size_t> started{0}, last{count};
        auto startLanes = [&] {
            for (std::size_t k = 0; k < count && !explored; ++k) {
                explored = !startIteration(lanes[k]);
                if (explored)
                    last.store(k + 1, std::memory_order_relaxed);
                started.store(k + 1, std::memory_order_release);
            }
        };
        std::atomic<std::size_t> next{0};
        team.run([&](int thread) {
            if (thread == 0)
                startLanes();
            for (std::size_t k = next++; k < count; k = next++) {
                while (started.load(std::memory_order_acquire) <= k &&
                       k < last.load(std::memory_order_relaxed))
                    std::this_thread::yield();
                if (k >= last.load(std::memory_order_relaxed))
                    return;
                if (lanes[k].task != Lane::Task::None)
                    work(lanes[k], evaluators[static_cast<std::size_t>(thread)]);
            }
        });
        for (std::size_t k = 0; k < count; ++k)
            if (lanes[k].task != Lane::Task::None) {
                finish(lanes[k], observer);
                report(observer, false);
            }
        return !explored;
    }

    Found run(SearchObserver* observer) {
        stopped = false;
        runStart = std::chrono::steady_clock::now();
        runIterationsStart = iterations.load();
        lastProgress = -1;
        const int threads = std::max(1, options.threads);
        const bool rounds = options.lanes > 0;
        if (lanes.empty()) {
            lanes.resize(static_cast<std::size_t>(rounds ? options.lanes : threads));
            for (std::size_t k = 0; k < lanes.size(); ++k)
                lanes[k].random.seed(options.seed * 0x9E3779B97F4A7C15ull + k);
            walks.resize(rounds ? 1 : lanes.size());
        }
        Team team(std::min<int>(threads, static_cast<int>(lanes.size())) - 1);
        std::vector<cost::Evaluator> evaluators;
        evaluators.reserve(static_cast<std::size_t>(team.size()));
        for (int t = 0; t < team.size(); ++t)
            evaluators.emplace_back(
                model,
                cost::EvaluatorOptions{.layerClasses = options.layerClasses
                                                           ? cost::EvaluatorOptions::LayerClasses::WherePaying
                                                           : cost::EvaluatorOptions::LayerClasses::Off});
        // The seeds: the expert plans, then the pins alone (a plan too). Rounds start after them; the other
        // free lanes start beside them.
        // A stop during the seeding still prices the pins, so the search always has a plan to return.
        auto seed = [&] {
            if (options.seedWithExperts)
                seedExperts(evaluators.front(), observer);
            if (!startPriced) {
                startPriced = true;
                price(evaluators.front(), start, "search", observer);
            }
        };
        if (rounds)
            seed();
        else
            team.run([&](int t) {
                if (t == 0)
                    seed();
                runFree(lanes[static_cast<std::size_t>(t)], evaluators[static_cast<std::size_t>(t)],
                        observer);
            });
        while (rounds && budgetLeft()) {
            if (paused) {
                std::unique_lock lock(pauseMutex);
                pauseCondition.wait(lock, [&] { return !paused || stopped; });
                continue;
            }
            if (!round(team, evaluators, observer)) {
                exhausted = true;
                stopped = true;
            }
        }
        report(observer, true);
        std::lock_guard lock(bestMutex);
        return bestFound ? *bestFound : Found{};
    }
};

Search::Search(const cost::CostModel& model, Plan start, SearchOptions options)
    : impl_(std::make_unique<Impl>(model, std::move(start), options)) {}
Search::~Search() = default;
Found Search::run(SearchObserver* observer) {
    return impl_->run(observer);
}
void Search::pause() {
    impl_->paused = true;
}
void Search::resume() {
    impl_->paused = false;
    impl_->pauseCondition.notify_all();
}
void Search::stop() {
    impl_->stopped = true;
    impl_->pauseCondition.notify_all();
}
std::optional<Found> Search::best() const {
    std::lock_guard lock(impl_->bestMutex);
    return impl_->bestFound;
}
std::size_t Search::treeSize() const {
    std::lock_guard lock(impl_->treeMutex);
    return impl_->nodes.size();
}
std::vector<TreeNode> Search::changedNodes() {
    std::lock_guard lock(impl_->treeMutex);
    std::vector<TreeNode> out;
    for (std::size_t i = 0; i < impl_->nodes.size(); ++i) {
        auto& n = impl_->nodes[i];
        if (!n.dirty)
            continue;
        n.dirty = false;
        std::string status = n.status;
        if (status.empty() && n.terminal)
            status = "explored";
        out.push_back({static_cast<std::int64_t>(i), n.parent,
                       i == 0 ? "root" : impl_->actions.describe(n.action),
                       static_cast<std::int64_t>(std::llround(n.visits)), n.valueSum, n.best, status});
    }
    return out;
}

// --------------------------------------------------------------------------------------------------
// exhaustive

Result<ExhaustiveResult> exhaustiveSearch(const cost::CostModel& model, const Plan& start, int maxDecisions,
                                          std::size_t maxStates, std::size_t maxGroups, Staging staging) {
    ActionSpace actions(model, maxGroups, 0.005, staged(start) ? Staging::None : staging);
    Evaluations evaluations(model, actions.blocks(), maxStates + 1);
    // A step and the pending actions it calls for (resolutions, a pipeline's microbatches) are one step: each
    // completion is its own successor.
    auto completions = [&](Plan first) {
        std::vector<Plan> successors;
        std::vector<Plan> open{std::move(first)};
        while (!open.empty()) {
            Plan p = std::move(open.back());
            open.pop_back();
            auto pending = actions.pendingResolutions(p);
            if (pending.empty())
                pending = actions.pendingMicrobatches(p);
            if (pending.empty()) {
                successors.push_back(std::move(p));
                continue;
            }
            for (const auto& action : pending)
                open.push_back(withAction(p, action));
        }
        return successors;
    };
    // Depth-first over states, first only enumerated (a state seen before, with the same shardings and remat
    // policies, is not expanded again), so that a space past the limit fails before anything is evaluated.
    std::unordered_set<std::uint64_t> seen;
    std::vector<Plan> states;
    struct Frame {
        Plan plan;
        int depth;
    };
    std::vector<Frame> stack{{start, 0}};
    while (!stack.empty()) {
        Frame frame = std::move(stack.back());
        stack.pop_back();
        if (!seen.insert(evaluations.hashOf(frame.plan)).second)
            continue;
        if (seen.size() > maxStates)
            return makeError("search.too-large", "the decision space has more than " +
                                                     std::to_string(maxStates) + " sharding states within " +
                                                     std::to_string(maxDecisions) +
                                                     " decisions; use the tree search instead");
        // Remat actions are no decisions: they are successors at any depth (each family set once on a path).
        for (const auto& remat : actions.rematActions(frame.plan))
            stack.push_back({withAction(frame.plan, remat), frame.depth});
        // Pipelines and microbatches are no decisions either: set once on a path, at any depth.
        for (const auto& action : actions.stagingActions(frame.plan))
            for (auto& p : completions(withAction(frame.plan, action)))
                stack.push_back({std::move(p), frame.depth});
        if (frame.depth < maxDecisions) {
            const auto legal = actions.legal(frame.plan);
            for (auto it = legal.rbegin(); it != legal.rend(); ++it) {
                Plan next = frame.plan;
                next.decisions.push_back(actions.candidates()[*it].decision);
                for (auto& p : completions(std::move(next)))
                    stack.push_back({std::move(p), frame.depth + 1});
            }
        }
        states.push_back(std::move(frame.plan));
    }
    cost::Evaluator evaluator(model);
    ExhaustiveResult result;
    bool haveBest = false;
    for (const Plan& plan : states) {
        const cost::Evaluation* fresh = nullptr;
        const double r = evaluations.evaluate(evaluator, plan, fresh);
        if (fresh && (!haveBest || r > result.best.reward)) {
            haveBest = true;
            result.best.plan = plan;
            result.best.evaluation = *fresh;
            result.best.reward = r;
            result.best.origin = "exhaustive";
        }
    }
    result.states = states.size();
    return result;
}

// ------------------------------------------------------------------------------------------ options and
// budgets

namespace {

std::string shortNumber(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", value);
    return buffer;
}

}  // namespace

Result<Budget> parseBudget(std::string_view text) {
    const std::string owned(text);
    auto fail = [&](const std::string& why) -> Result<Budget> {
        return makeError("search.budget", "budget '" + owned + "': " + why);
    };
    const char* begin = owned.c_str();
    char* end = nullptr;
    const double value = std::strtod(begin, &end);
    const std::string unit(end == begin ? "" : end);
    if (end == begin ||
        (!unit.empty() && unit != "s" && unit != "m" && unit != "min" && unit != "it" && unit != "i"))
        return fail("expected a duration or a number of iterations, such as 60s, 2m or 5000it");
    if (!std::isfinite(value) || !(value > 0))
        return fail("must be a finite number greater than 0");
    Budget budget;
    if (unit == "it" || unit == "i") {
        if (value > static_cast<double>(kMaxBudgetIterations))
            return fail("at most " + shortNumber(static_cast<double>(kMaxBudgetIterations)) + " iterations");
        if (value != std::floor(value))
            return fail("a number of iterations must be whole");
        budget.iterations = static_cast<std::int64_t>(value);
        return budget;
    }
    const double seconds = unit == "m" || unit == "min" ? value * 60 : value;
    if (seconds > kMaxBudgetSeconds)
        return fail("at most 30 days (" + shortNumber(kMaxBudgetSeconds) + " s)");
    budget.seconds = seconds;
    return budget;
}

Status checkOptions(const SearchOptions& o) {
    auto fail = [](const std::string& message) -> Status { return makeError("search.options", message); };
    auto fraction = [](double p) { return std::isfinite(p) && p >= 0 && p <= 1; };
    if (!std::isfinite(o.exploration) || o.exploration < 0)
        return fail("exploration " + shortNumber(o.exploration) + ": must be a finite number >= 0");
    if (o.threads < 1 || o.threads > 1024)
        return fail("threads " + std::to_string(o.threads) + ": must be 1 to 1024");
    if (o.lanes < 0 || o.lanes > 1024)
        return fail("lanes " + std::to_string(o.lanes) + ": must be 0 to 1024");
    if (o.maxDecisions < 0 || o.maxDecisions > 1000)
        return fail("max decisions " + std::to_string(o.maxDecisions) + ": must be 0 to 1000");
    const Budget& b = o.budget;
    if (!std::isfinite(b.seconds) || b.seconds < 0 || b.seconds > kMaxBudgetSeconds)
        return fail("budget " + shortNumber(b.seconds) + " s: must be 0 (no limit) to 30 days");
    if (b.iterations < 0 || b.iterations > kMaxBudgetIterations)
        return fail("budget " + std::to_string(b.iterations) + " iterations: must be 0 (no limit) to " +
                    shortNumber(static_cast<double>(kMaxBudgetIterations)));
    if (b.patience < 0)
        return fail("patience " + std::to_string(b.patience) + ": must be 0 (none) or more iterations");
    if (!fraction(o.stopProbability))
        return fail("stop probability " + shortNumber(o.stopProbability) + ": must be in [0, 1]");
    if (!fraction(o.rematProbability))
        return fail("remat probability " + shortNumber(o.rematProbability) + ": must be in [0, 1]");
    if (!fraction(o.stagingProbability))
        return fail("staging probability " + shortNumber(o.stagingProbability) + ": must be in [0, 1]");
    if (!fraction(o.refineProbability))
        return fail("refine probability " + shortNumber(o.refineProbability) + ": must be in [0, 1]");
    if (!std::isfinite(o.virtualLoss) || o.virtualLoss < 0)
        return fail("virtual loss " + shortNumber(o.virtualLoss) + ": must be a finite number >= 0");
    return Success{};
}

}  // namespace shardscope::search
