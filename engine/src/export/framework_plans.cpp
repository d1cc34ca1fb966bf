// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/export/framework_plans.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>

namespace shardscope::exporting {
namespace {

std::string quoted(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\')
            out += '\\';
        out += c;
    }
    return out + "\"";
}

std::string meshShape(const mesh::Mesh& mesh) {
    std::string shape, names;
    for (std::size_t i = 0; i < mesh.axes.size(); ++i) {
        shape += (i ? ", " : "") + std::to_string(mesh.axes[i].size);
        names += (i ? ", " : "") + quoted(mesh.axes[i].name);
    }
    if (mesh.axes.size() == 1) {  // Python's one-element tuples
        shape += ",";
        names += ",";
    }
    return "(" + shape + "), (" + names + ")";
}

// `    "name": (Shard(1), Replicate()),  # tensor<...>`: one placement per mesh dimension, in mesh order.
std::string placementsLine(const mesh::Mesh& mesh, const ParameterSharding& p) {
    std::string placements;
    bool reordered = false;
    for (std::size_t axis = 0; axis < mesh.axes.size(); ++axis) {
        std::string placement = "Replicate()";
        for (std::size_t d = 0; d < p.sharding.dimensions.size(); ++d) {
            const plan::AxisList& axes = p.sharding.dimensions[d];
            for (int i = 0; i < axes.size(); ++i) {
                if (axes[i] != static_cast<int>(axis))
                    continue;
                placement = "Shard(" + std::to_string(d) + ")";
                if (i > 0 && axes[i - 1] > axes[i])
                    reordered = true;
            }
        }
        placements += (axis ? ", " : "") + placement;
    }
    if (mesh.axes.size() == 1)
        placements += ",";
    return "    " + quoted(p.name) + ": (" + placements + "),  # " + p.type.toString() +
           (reordered ? "; its axes are not in mesh order: DTensor shards them in mesh order" : "") + "\n";
}

// The shared part of both frameworks' remat code: the list of decisions, and how a block finds its policy.
void rematList(std::ostream& out, const std::vector<plan::RematDecision>& remat, bool jax) {
    out << "remat_policies = [\n";
    for (const plan::RematDecision& r : remat) {
        out << "    (" << quoted(r.target) << ", ";
        switch (r.policy) {
            case plan::Remat::None:
                out << (jax ? "None" : "\"none\"")
                    << "),  # none: keep every activation the backward pass reads";
                break;
            case plan::Remat::Selective:
                out << (jax ? "jax.checkpoint_policies.save_anything_except_these_names(\"attention_scores\","
                              " \"attention_probs\")"
                            : "\"selective\"")
                    << "),  # selective: recompute the attention core";
                break;
            case plan::Remat::Full:
                out << (jax ? "jax.checkpoint_policies.nothing_saveable" : "\"full\"")
                    << "),  # full: keep only the block's input";
                break;
            case plan::Remat::DotsSaveable:
                out << (jax ? "jax.checkpoint_policies.dots_saveable" : "\"dots-saveable\"")
                    << "),  # dots-saveable: keep the matmul outputs, recompute the rest";
                break;
        }
        out << "\n";
    }
    out << "]\n\n\n"
        << "def remat_policy(block):\n"
        << "    \"\"\"The policy of block \"layers.3\": the last entry naming it or its family "
           "\"layers.*\".\"\"\"\n"
        << "    family = block.rsplit(\".\", 1)[0] + \".*\"\n"
        << "    policy = " << (jax ? "None" : "\"none\"") << "\n"
        << "    for target, entry in remat_policies:\n"
        << "        if target in (block, family):\n"
        << "            policy = entry\n"
        << "    return policy\n";
}

bool anySelective(const std::vector<plan::RematDecision>& remat) {
    return std::any_of(remat.begin(), remat.end(),
                       [](const plan::RematDecision& r) { return r.policy == plan::Remat::Selective; });
}

void jaxRemat(std::ostream& out, const std::vector<plan::RematDecision>& remat) {
    out << "\n\n# Rematerialization per block of layers (jax.checkpoint around each block's forward "
           "function).\n";
    if (anySelective(remat))
        out << "# selective: name the attention core inside each block so the policy can leave it out, e.g.\n"
            << "#   from jax.ad_checkpoint import checkpoint_name\n"
            << "#   scores = checkpoint_name(q @ k.T, \"attention_scores\")\n"
            << "#   probs = checkpoint_name(jax.nn.softmax(scores), \"attention_probs\")\n";
    rematList(out, remat, true);
    out << "\n\n"
        << "def checkpointed(block, fn):\n"
        << "    \"\"\"Block `block`'s forward function `fn` under jax.checkpoint with its policy (fn itself "
           "for none).\"\"\"\n"
        << "    policy = remat_policy(block)\n"
        << "    return fn if policy is None else jax.checkpoint(fn, policy=policy)\n";
}

void torchRematImports(std::ostream& out, const std::vector<plan::RematDecision>& remat) {
    if (remat.empty())
        return;
    out << "import functools\n\nimport torch\n"
        << "from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper\n"
        << "from torch.utils.checkpoint import CheckpointPolicy, create_selective_checkpoint_contexts\n";
}

void torchRemat(std::ostream& out, const std::vector<plan::RematDecision>& remat) {
    out << "\n\n# Activation checkpointing per block of layers: apply_remat(model) after parallelize_module "
           "and "
           "fully_shard.\n";
    rematList(out, remat, false);
    out << "\n\n"
        << "# selective (Korthikanti et al.) recomputes the attention core, as TorchTitan's op-level "
           "selective AC does;\n"
        << "# dots-saveable (JAX's dots_saveable) keeps only the matmul outputs.\n"
        << "_ATTENTION_OPS = {\n"
        << "    torch.ops.aten._scaled_dot_product_flash_attention.default,\n"
        << "    torch.ops.aten._scaled_dot_product_efficient_attention.default,\n"
        << "    torch.ops.aten._softmax.default,\n"
        << "}\n"
        << "_MATMUL_OPS = {torch.ops.aten.mm.default, torch.ops.aten.addmm.default, "
           "torch.ops.aten.bmm.default}\n\n\n"
        << "def _saving(keep):\n"
        << "    def policy(ctx, op, *args, **kwargs):\n"
        << "        return CheckpointPolicy.MUST_SAVE if keep(op) else CheckpointPolicy.PREFER_RECOMPUTE\n\n"
        << "    return functools.partial(create_selective_checkpoint_contexts, policy)\n\n\n"
        << "_WRAPPERS = {\n"
        << "    \"full\": lambda module: checkpoint_wrapper(module),\n"
        << "    \"selective\": lambda module: checkpoint_wrapper(module, context_fn=_saving(lambda op: op "
           "not in _ATTENTION_OPS)),\n"
        << "    \"dots-saveable\": lambda module: checkpoint_wrapper(module, context_fn=_saving(lambda op: "
           "op in _MATMUL_OPS)),\n"
        << "}\n\n\n"
        << "def apply_remat(model):\n"
        << "    \"\"\"Wraps each block module (\"layers.3\") whose policy recomputes.\"\"\"\n"
        << "    for name, module in list(model.named_modules()):\n"
        << "        policy = remat_policy(name) if \".\" in name else \"none\"\n"
        << "        if policy in _WRAPPERS:\n"
        << "            parent, _, child = name.rpartition(\".\")\n"
        << "            model.get_submodule(parent).register_module(child, _WRAPPERS[policy](module))\n"
        << "    return model\n";
}

}  // namespace

std::vector<ParameterSharding> parameterShardings(const ir::Graph& graph,
                                                  const std::vector<plan::TensorSharding>& shardings) {
    std::vector<ParameterSharding> out;
    for (std::size_t a = 0; a < graph.arguments.size(); ++a) {
        const ir::Argument& argument = graph.arguments[a];
        if (argument.role != ir::ArgumentRole::Parameter)
            continue;
        ParameterSharding p;
        p.name = argument.name.empty() ? "%arg" + std::to_string(a) : argument.name;
        p.type = graph.type(argument.value);
        if (argument.value.index < shardings.size())
            p.sharding = shardings[argument.value.index];
        out.push_back(std::move(p));
    }
    return out;
}

std::string jaxSnippet(const mesh::Mesh& mesh, const std::vector<ParameterSharding>& parameters,
                       const std::vector<plan::RematDecision>& remat) {
    std::ostringstream out;
    out << "# Generated by Shardscope: the parameters' shardings on mesh " << mesh.toString() << ".\n"
        << "import jax\nimport numpy as np\nfrom jax.sharding import Mesh, NamedSharding, PartitionSpec as "
           "P\n\n"
        << "shape, names = " << meshShape(mesh) << "\n"
        << "mesh = Mesh(np.array(jax.devices()[:np.prod(shape)]).reshape(shape), names)\n\n"
        << "partition_specs = {\n";
    for (const ParameterSharding& p : parameters) {
        std::string spec;
        for (int d = 0; d < p.type.rank(); ++d) {
            const plan::AxisList axes = d < static_cast<int>(p.sharding.dimensions.size())
                                            ? p.sharding.dimensions[static_cast<std::size_t>(d)]
                                            : plan::AxisList{};
            std::string entry;
            if (axes.empty()) {
                entry = "None";
            } else if (axes.size() == 1) {
                entry = quoted(mesh.axes[static_cast<std::size_t>(axes[0])].name);
            } else {
                entry = "(";
                for (int i = 0; i < axes.size(); ++i)
                    entry += (i ? ", " : "") + quoted(mesh.axes[static_cast<std::size_t>(axes[i])].name);
                entry += ")";
            }
            spec += (d ? ", " : "") + entry;
        }
        out << "    " << quoted(p.name) << ": P(" << spec << "),  # " << p.type.toString() << "\n";
    }
    out << "}\n\nshardings = {name: NamedSharding(mesh, spec) for name, spec in partition_specs.items()}\n";
    if (!remat.empty())
        jaxRemat(out, remat);
    return out.str();
}

std::string dtensorSnippet(const mesh::Mesh& mesh, const std::vector<ParameterSharding>& parameters,
                           const std::vector<plan::RematDecision>& remat) {
    std::ostringstream out;
    out << "# Generated by Shardscope: the parameters' DTensor placements on mesh " << mesh.toString()
        << ".\n";
    torchRematImports(out, remat);
    out << "from torch.distributed.device_mesh import init_device_mesh\n"
        << "from torch.distributed.tensor import Replicate, Shard\n\n"
        << "shape, names = " << meshShape(mesh) << "\n"
        << "mesh = init_device_mesh(\"cuda\", shape, mesh_dim_names=names)\n\n"
        << "# One placement per mesh dimension, in mesh order.\nplacements = {\n";
    for (const ParameterSharding& p : parameters)
        out << placementsLine(mesh, p);
    out << "}\n\n# e.g. distribute_tensor(param, mesh, placements[name]) for each parameter.\n";
    if (!remat.empty())
        torchRemat(out, remat);
    return out.str();
}

namespace {

// How a parameter reaches the op that uses it: the value seen there and, per dimension of that value, the
// parameter's dimension.
struct View {
    ir::ValueId value;
    std::vector<int> dims;
};

bool isShardingCall(const ir::Op& op) {
    const auto* call = std::get_if<ir::CustomCallAttributes>(&op.attributes);
    return op.kind == ir::OpKind::CustomCall && call && call->target == "Sharding";
}

// The first top-level op (program order) that uses `parameter` other than through ops that only change its
// type or layout (convert, sharding constraints, and `through` ops: transpose for weights; broadcast_in_dim
// and reshape for norm parameters, whose dimensions are not followed). Returns the op and the operand index.
std::optional<std::pair<const ir::Op*, std::size_t>> firstUse(const ir::Graph& graph, ir::ValueId parameter,
                                                              bool layoutOps, std::vector<int>& dims) {
    std::map<std::uint32_t, std::vector<int>> views;
    std::vector<int> identity(static_cast<std::size_t>(graph.type(parameter).rank()));
    for (std::size_t d = 0; d < identity.size(); ++d)
        identity[d] = static_cast<int>(d);
    views[parameter.index] = identity;
    for (const ir::OpId id : graph.body) {
        const ir::Op& op = graph.op(id);
        for (std::size_t i = 0; i < op.operands.size(); ++i) {
            const auto view = views.find(op.operands[i].index);
            if (view == views.end())
                continue;
            if (op.results.size() == 1 && (op.kind == ir::OpKind::Convert || isShardingCall(op))) {
                views[op.results[0].index] = view->second;
            } else if (op.results.size() == 1 && op.kind == ir::OpKind::Transpose && !layoutOps) {
                const auto& permutation = std::get<ir::Permutation>(op.attributes).permutation;
                std::vector<int> permuted;
                for (const std::int64_t p : permutation)
                    permuted.push_back(view->second[static_cast<std::size_t>(p)]);
                views[op.results[0].index] = permuted;
            } else if (op.results.size() == 1 && layoutOps &&
                       (op.kind == ir::OpKind::BroadcastInDim || op.kind == ir::OpKind::Reshape)) {
                views[op.results[0].index] = {};
            } else {
                dims = view->second;
                return std::make_pair(&op, i);
            }
            break;
        }
    }
    return std::nullopt;
}

std::string moduleOf(const std::string& name) {
    const auto dot = name.rfind('.');
    return dot == std::string::npos ? std::string() : name.substr(0, dot);
}

std::string leafOf(const std::string& name) {
    const auto dot = name.rfind('.');
    return dot == std::string::npos ? name : name.substr(dot + 1);
}

// The dimension of `sharding` (other than `except`) that carries `axis`, or -1.
int dimensionWith(const plan::TensorSharding& sharding, int axis, int except = -1) {
    for (std::size_t d = 0; d < sharding.dimensions.size(); ++d)
        if (static_cast<int>(d) != except && sharding.dimensions[d].contains(axis))
            return static_cast<int>(d);
    return -1;
}

}  // namespace

ParallelizePlan parallelizePlan(const ir::Graph& graph, const mesh::Mesh& mesh,
                                const std::vector<plan::TensorSharding>& shardings) {
    ParallelizePlan plan;
    const std::vector<ParameterSharding> parameters = parameterShardings(graph, shardings);
    std::vector<ir::ValueId> values;
    for (const auto& a : graph.arguments)
        if (a.role == ir::ArgumentRole::Parameter)
            values.push_back(a.value);
    auto shardingOf = [&](ir::ValueId v) {
        return v.index < shardings.size() ? shardings[v.index] : plan::TensorSharding{};
    };
    const int axes = static_cast<int>(mesh.axes.size());

    // Per parameter, the axes a style explains (the rest make it left over).
    std::vector<std::uint32_t> explained(parameters.size(), 0);
    std::map<std::string, std::vector<std::size_t>> modules;  // module path -> parameter indices
    for (std::size_t i = 0; i < parameters.size(); ++i)
        modules[moduleOf(parameters[i].name)].push_back(i);

    // Linears.
    std::set<int> tensorParallelAxes;
    std::map<std::string, std::vector<ModuleStyle>> linearStyles;
    std::map<std::size_t, std::string> notLinear;  // parameter index -> why it is no Linear weight
    for (std::size_t i = 0; i < parameters.size(); ++i) {
        const ParameterSharding& p = parameters[i];
        const std::string module = moduleOf(p.name);
        if (p.type.rank() != 2 || module.empty())
            continue;
        std::vector<int> dims;
        const auto use = firstUse(graph, values[i], false, dims);
        if (!use) {
            notLinear[i] = "not a Linear weight (no op uses it)";
            continue;
        }
        if (use->first->kind != ir::OpKind::DotGeneral || use->first->operands.size() != 2) {
            notLinear[i] =
                "not a Linear weight (its first use is " + std::string(ir::mnemonic(use->first->kind)) + ")";
            continue;
        }
        const ir::Op& dot = *use->first;
        const std::size_t side = use->second;
        const auto& numbers = std::get<ir::DotDimensions>(dot.attributes);
        const auto& contracting = side == 0 ? numbers.lhsContracting : numbers.rhsContracting;
        const auto& batching = side == 0 ? numbers.lhsBatching : numbers.rhsBatching;
        if (contracting.size() != 1 || !batching.empty() || dims.size() != 2) {
            notLinear[i] = "not a Linear weight (its dot_general contracts or batches it otherwise)";
            continue;
        }
        const int contracted = static_cast<int>(contracting[0]);
        const int in = dims[static_cast<std::size_t>(contracted)],
                  out = dims[static_cast<std::size_t>(1 - contracted)];
        const ir::ValueId activation = dot.operands[1 - side];
        const auto& activationContracting = side == 0 ? numbers.rhsContracting : numbers.lhsContracting;
        if (activationContracting.size() != 1)
            continue;
        const int activationIn = static_cast<int>(activationContracting[0]);
        const ir::ValueId result = dot.results[0];
        const int resultOut = side == 1 ? graph.type(result).rank() - 1 : 0;
        const plan::TensorSharding weight = p.sharding, x = shardingOf(activation), y = shardingOf(result);
        auto carries = [](const plan::TensorSharding& s, int d, int axis) {
            return d >= 0 && d < static_cast<int>(s.dimensions.size()) &&
                   s.dimensions[static_cast<std::size_t>(d)].contains(axis);
        };
        for (int axis = 0; axis < axes; ++axis) {
            ModuleStyle style{module, ModuleStyle::Kind::Colwise, axis, {}, {}, 1};
            if (carries(weight, out, axis) && carries(y, resultOut, axis)) {
                if (const int d = dimensionWith(x, axis, activationIn); d >= 0)
                    style.inputLayouts = "Shard(" + std::to_string(d) + ")";
            } else if (carries(weight, in, axis) && carries(x, activationIn, axis)) {
                style.kind = ModuleStyle::Kind::Rowwise;
                if (const int d = dimensionWith(y, axis, resultOut); d >= 0)
                    style.outputLayouts = "Shard(" + std::to_string(d) + ")";
            } else {
                continue;
            }
            linearStyles[module].push_back(style);
        }
    }
    for (const auto& [module, styles] : linearStyles) {
        if (styles.size() != 1) {
            plan.notes.push_back(module + " is tensor-parallel on " + std::to_string(styles.size()) +
                                 " mesh axes; parallelize_module takes a 1-D mesh");
            continue;
        }
        const ModuleStyle& style = styles.front();
        bool covered = true;
        for (const std::size_t i : modules[module]) {
            const ParameterSharding& p = parameters[i];
            const std::string leaf = leafOf(p.name);
            const int d = dimensionWith(p.sharding, style.axis);
            if (p.type.rank() == 2)
                covered = covered && d >= 0;
            else if (p.type.rank() == 1 && leaf == "bias")
                covered = covered && (style.kind == ModuleStyle::Kind::Colwise ? d == 0 : d < 0);
            else
                covered = covered && d < 0;
        }
        if (!covered) {
            plan.notes.push_back(
                module + ": its parameters are not sharded as " +
                (style.kind == ModuleStyle::Kind::Colwise ? "ColwiseParallel" : "RowwiseParallel") +
                " shards them");
            continue;
        }
        for (const std::size_t i : modules[module])
            if (dimensionWith(parameters[i].sharding, style.axis) >= 0)
                explained[i] |= 1u << style.axis;
        tensorParallelAxes.insert(style.axis);
        plan.styles.push_back(style);
    }

    // Norms: modules of 1-D parameters whose activation is sharded on a non-feature dimension over a
    // tensor-parallel axis.
    for (const auto& [module, members] : modules) {
        if (module.empty() || linearStyles.count(module) > 0)
            continue;
        if (!std::all_of(members.begin(), members.end(),
                         [&](std::size_t i) { return parameters[i].type.rank() == 1; }))
            continue;
        for (const int axis : tensorParallelAxes) {
            int sequenceDim = -2;
            for (const std::size_t i : members) {
                std::vector<int> dims;
                const auto use = firstUse(graph, values[i], true, dims);
                int d = -1;
                if (use && use->first->results.size() == 1 &&
                    dimensionWith(parameters[i].sharding, axis) < 0) {
                    const ir::ValueId activation = use->first->results[0];
                    const int rank = graph.type(activation).rank();
                    d = rank >= 2 ? dimensionWith(shardingOf(activation), axis, rank - 1) : -1;
                }
                sequenceDim = sequenceDim == -2 || sequenceDim == d ? d : -1;
            }
            if (sequenceDim >= 0)
                plan.styles.push_back({module, ModuleStyle::Kind::Sequence, axis, {}, {}, sequenceDim});
        }
    }
    std::stable_sort(plan.styles.begin(), plan.styles.end(), [&](const ModuleStyle& a, const ModuleStyle& b) {
        return modules[a.module].front() < modules[b.module].front();
    });

    // What no style explains.
    for (std::size_t i = 0; i < parameters.size(); ++i) {
        const std::uint32_t rest = parameters[i].sharding.mask() & ~explained[i];
        if (rest == 0)
            continue;
        plan.leftover.push_back(parameters[i]);
        std::string on;
        for (int axis = 0; axis < axes; ++axis)
            if ((rest >> axis) & 1u)
                on += (on.empty() ? "" : ", ") + mesh.axes[static_cast<std::size_t>(axis)].name;
        const std::string module = moduleOf(parameters[i].name);
        std::string why;
        if (module.empty())
            why = "it has no module path";
        else if (explained[i] != 0)
            why =
                "beyond its module's tensor-parallel style (data parallel: FSDP/ZeRO, e.g. fully_shard over "
                "those axes after parallelize_module)";
        else if (notLinear.count(i) > 0)
            why = notLinear[i];
        else
            why = "no tensor-parallel style shards a " + std::to_string(parameters[i].type.rank()) +
                  "-D parameter over it that way (data parallel: FSDP/ZeRO)";
        plan.notes.push_back(parameters[i].name + " sharded over " + on + ": " + why);
    }
    return plan;
}

namespace {

// An axis name as a Python variable name: characters other than letters and digits become '_'.
std::string pythonIdentifier(std::string name) {
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)))
            c = '_';
    return name;
}
}  // namespace

std::string parallelizeSnippet(const mesh::Mesh& mesh, const ParallelizePlan& plan,
                               const std::vector<plan::RematDecision>& remat) {
    std::ostringstream out;
    out << "# Generated by Shardscope: the plan's tensor parallelism as parallelize_module plans on mesh "
        << mesh.toString() << ".\n"
        << "# Linears are found by the dot_general that consumes their weight: its contracting dimension is "
           "the\n"
        << "# input features, whether the weight is stored [in, out] (JAX) or [out, in] (torch.nn.Linear).\n";
    torchRematImports(out, remat);
    out << "from torch.distributed.device_mesh import init_device_mesh\n"
        << "from torch.distributed.tensor import Replicate, Shard\n"
        << "from torch.distributed.tensor.parallel import (\n"
        << "    ColwiseParallel,\n    RowwiseParallel,\n    SequenceParallel,\n    parallelize_module,\n)\n\n"
        << "shape, names = " << meshShape(mesh) << "\n"
        << "mesh = init_device_mesh(\"cuda\", shape, mesh_dim_names=names)\n";
    std::set<int> axes;
    for (const ModuleStyle& s : plan.styles)
        axes.insert(s.axis);
    for (const int axis : axes) {
        const std::string name = mesh.axes[static_cast<std::size_t>(axis)].name;
        const std::string variable = pythonIdentifier(name);
        out << "\n# Tensor parallel over \"" << name << "\".\n" << variable << "_plan = {\n";
        for (const ModuleStyle& s : plan.styles) {
            if (s.axis != axis)
                continue;
            std::string style;
            switch (s.kind) {
                case ModuleStyle::Kind::Colwise:
                    style = "ColwiseParallel(" +
                            (s.inputLayouts.empty() ? "" : "input_layouts=" + s.inputLayouts) + ")";
                    break;
                case ModuleStyle::Kind::Rowwise:
                    style = "RowwiseParallel(" +
                            (s.outputLayouts.empty() ? "" : "output_layouts=" + s.outputLayouts) + ")";
                    break;
                case ModuleStyle::Kind::Sequence:
                    style = "SequenceParallel(" +
                            (s.sequenceDim == 1 ? "" : "sequence_dim=" + std::to_string(s.sequenceDim)) + ")";
                    break;
            }
            out << "    " << quoted(s.module) << ": " << style << ",\n";
        }
        out << "}\n";
    }
    out << "\n\ndef parallelize(model):\n";
    if (axes.empty())
        out << "    # The plan has no tensor parallelism a parallelize_module style expresses.\n";
    for (const int axis : axes) {
        const std::string name = mesh.axes[static_cast<std::size_t>(axis)].name;
        const std::string variable = pythonIdentifier(name);
        out << "    parallelize_module(model, mesh[" << quoted(name) << "], " << variable << "_plan)\n";
    }
    out << "    return model\n";
    if (!plan.leftover.empty()) {
        out << "\n\n# Not expressible as a parallelize_module style; shard these with their DTensor "
               "placements\n"
            << "# (distribute_tensor(param, mesh, placements[name]), or fully_shard for data-parallel "
               "axes):\n";
        for (const std::string& note : plan.notes)
            out << "#   " << note << "\n";
        out << "placements = {\n";
        for (const ParameterSharding& p : plan.leftover)
            out << placementsLine(mesh, p);
        out << "}\n";
    } else if (!plan.notes.empty()) {
        out << "\n";
        for (const std::string& note : plan.notes)
            out << "# " << note << "\n";
    }
    if (!remat.empty())
        torchRemat(out, remat);
    return out.str();
}

namespace {

std::string lastComponent(const std::string& label) {
    const auto dot = label.rfind('.');
    return dot == std::string::npos ? label : label.substr(dot + 1);
}

// Whether some atom of a name in `groups` carries `axis`.
bool groupsCarry(const plan::PlanContext& context, const plan::AppliedPlan& applied,
                 const std::vector<analysis::GroupId>& groups, int axis) {
    for (const analysis::GroupId g : groups)
        for (const analysis::NameId n : context.space().group(g).names)
            for (const auto& atom : context.nameAtoms(n))
                if (atom.atom < applied.atomAxes.size() && applied.atomAxes[atom.atom].contains(axis))
                    return true;
    return false;
}

// Whether a value of class `tensorClass` (or a parameter argument, for Parameter) carries `axis` on a
// dimension without an `experts` name.
bool classCarries(const plan::PlanContext& context, const plan::AppliedPlan& applied,
                  plan::TensorClass tensorClass, int axis) {
    const ir::Graph& graph = context.graph();
    const analysis::DecisionSpace& space = context.space();
    auto carries = [&](ir::ValueId value) {
        const plan::TensorSharding sharding = applied.sharding(space, value);
        for (std::size_t d = 0; d < sharding.dimensions.size(); ++d) {
            if (!sharding.dimensions[d].contains(axis))
                continue;
            const auto names = space.namesOf(value, static_cast<int>(d));
            if (std::none_of(names.begin(), names.end(), [&](analysis::NameId n) {
                    return lastComponent(space.group(space.name(n).group).label) == "experts";
                }))
                return true;
        }
        return false;
    };
    if (tensorClass == plan::TensorClass::Parameter) {
        for (const ir::Argument& a : graph.arguments)
            if (a.role == ir::ArgumentRole::Parameter && carries(a.value))
                return true;
        return false;
    }
    const auto& classes = context.classes();
    for (std::size_t v = 0; v < classes.size() && v < graph.values.size(); ++v)
        if (classes[v] == tensorClass && carries(ir::ValueId(static_cast<std::uint32_t>(v))))
            return true;
    return false;
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
    std::string out;
    for (const std::string& p : parts)
        out += (out.empty() ? "" : separator) + p;
    return out;
}

std::string intList(const std::vector<int>& values) {
    std::vector<std::string> parts;
    parts.reserve(values.size());
    for (const int v : values)
        parts.push_back(std::to_string(v));
    return "[" + join(parts, ", ") + "]";
}

}  // namespace

TrainingParallelism trainingParallelism(const plan::PlanContext& context, const mesh::Mesh& mesh,
                                        const plan::Plan& plan, const plan::AppliedPlan& applied,
                                        const cost::PipelineEvaluation* evaluation) {
    using Role = TrainingParallelism::Role;
    TrainingParallelism out;
    out.devices = mesh.devices();
    out.microbatches = std::max(1, plan.microbatches);
    const analysis::DecisionSpace& space = context.space();
    const ir::Graph& graph = context.graph();

    std::vector<analysis::GroupId> batch, sequence, experts;
    if (const auto b = context.batchGroup()) {
        batch.push_back(*b);
        for (const analysis::NameId n : space.group(*b).names)
            out.batch = std::max(out.batch, space.name(n).size);
    }
    for (std::size_t g = 0; g < space.groups.size(); ++g) {
        const std::string last = lastComponent(space.groups[g].label);
        if (last == "seq")
            sequence.push_back(analysis::GroupId{static_cast<std::uint32_t>(g)});
        else if (last == "experts")
            experts.push_back(analysis::GroupId{static_cast<std::uint32_t>(g)});
    }

    std::vector<plan::TensorSharding> shardings;
    shardings.reserve(graph.values.size());
    for (std::size_t v = 0; v < graph.values.size(); ++v)
        shardings.push_back(applied.sharding(space, ir::ValueId(static_cast<std::uint32_t>(v))));
    std::set<int> tensorAxes;
    for (const ModuleStyle& style : parallelizePlan(graph, mesh, shardings).styles)
        tensorAxes.insert(style.axis);

    bool statesSharded = false, gradientsSharded = false;
    for (std::size_t i = 0; i < mesh.axes.size(); ++i) {
        const int axis = static_cast<int>(i);
        TrainingParallelism::Axis entry{mesh.axes[i].name, mesh.axes[i].size, Role::None};
        if (plan.pipeline && plan.pipeline->axis == axis) {
            const std::int64_t stages = std::max(1, plan.pipeline->stages);
            entry.size /= stages;
            if (entry.size == 1) {
                entry.size = stages;
                entry.role = Role::Pipeline;
                out.axes.push_back(entry);
                continue;
            }
            out.lost.push_back("the pipeline axis " + entry.name + " has " + std::to_string(entry.size) +
                               " devices per stage besides its stages: the frameworks give the pipeline its "
                               "own axis, so they are counted by what the plan does on them");
        }
        if (entry.size == 1)
            continue;
        const bool shardsBatch = groupsCarry(context, applied, batch, axis);
        const bool shardsSequence = groupsCarry(context, applied, sequence, axis);
        const bool shardsExperts = groupsCarry(context, applied, experts, axis);
        if (tensorAxes.count(axis) > 0) {
            entry.role = Role::Tensor;
            out.tensor *= entry.size;
            out.sequenceParallel = out.sequenceParallel || shardsSequence;
            if (shardsBatch)
                out.lost.push_back(
                    "axis " + entry.name +
                    " shards the batch as well as tensor-parallel layers: no degree says both");
        } else if (shardsBatch) {
            const bool parameters = classCarries(context, applied, plan::TensorClass::Parameter, axis);
            entry.role = parameters ? Role::DataShard : Role::DataReplicate;
            (parameters ? out.dataShard : out.dataReplicate) *= entry.size;
            if (shardsExperts)
                out.expert *= entry.size;
            if (!parameters) {
                statesSharded =
                    statesSharded || classCarries(context, applied, plan::TensorClass::OptimizerState, axis);
                gradientsSharded =
                    gradientsSharded || classCarries(context, applied, plan::TensorClass::Gradient, axis);
            }
        } else if (shardsSequence) {
            entry.role = Role::Context;
            out.context *= entry.size;
        } else if (shardsExperts) {
            out.lost.push_back("axis " + entry.name +
                               " shards the experts but not the batch: the frameworks' expert parallelism "
                               "borrows data-parallel devices");
        } else {
            bool any = false;
            for (const auto& axes : applied.atomAxes)
                any = any || axes.contains(axis);
            out.lost.push_back("axis " + entry.name + " (" + std::to_string(entry.size) + " devices) " +
                               (any ? "shards neither the batch, the sequence nor a tensor-parallel layer"
                                    : "is used by no decision (its devices compute the same)") +
                               ": no degree says that");
        }
        out.axes.push_back(entry);
    }
    if (statesSharded || gradientsSharded)
        out.optimizerSharding = gradientsSharded ? TrainingParallelism::OptimizerSharding::StatesAndGradients
                                                 : TrainingParallelism::OptimizerSharding::States;

    const plan::LayerBlocks& blocks = context.blocks();
    const std::vector<std::int32_t> layers = plan::pipelineLayers(blocks);
    const std::vector<plan::Remat> perBlock = plan::rematPerBlock(blocks, plan.remat);
    for (const std::int32_t b : layers) {
        out.layers.push_back(blocks.blocks[static_cast<std::size_t>(b)]);
        out.remat.push_back(static_cast<std::size_t>(b) < perBlock.size()
                                ? perBlock[static_cast<std::size_t>(b)]
                                : plan::Remat::None);
    }
    if (plan.pipeline) {
        plan::Pipeline pipeline = *plan.pipeline;
        const std::size_t chunks = static_cast<std::size_t>(std::max(1, pipeline.stages)) *
                                   static_cast<std::size_t>(std::max(1, pipeline.virtualStages));
        if (pipeline.layersPerStage.empty() && evaluation && evaluation->chunks.size() == chunks)
            for (const cost::PipelineChunk& c : evaluation->chunks)
                pipeline.layersPerStage.push_back(c.layers);
        if (pipeline.layersPerStage.size() != chunks ||
            std::accumulate(pipeline.layersPerStage.begin(), pipeline.layersPerStage.end(), std::size_t{0}) !=
                out.layers.size()) {
            pipeline.layersPerStage.clear();
            out.lost.push_back(
                "the layer split is the cost model's balanced one, not known without evaluating the plan");
        }
        out.pipeline = pipeline;
    }
    return out;
}

namespace {

using Role = TrainingParallelism::Role;

// Where each role goes in a framework's device order, major (outer) first; -1: the framework has no place
// for it.
// A framework's device order: the rank of each role (indexed by Role; -1: the framework has no such axis).
using RoleOrder = std::array<int, 6>;

// The comment saying that the framework orders the devices otherwise than the mesh, or "".
std::string orderNote(const TrainingParallelism& p, RoleOrder order, const std::string& framework,
                      const std::string& frameworkOrder) {
    int previous = -1;
    std::vector<std::string> axes;
    bool differs = false;
    for (const auto& axis : p.axes) {
        const int rank = order[static_cast<std::size_t>(axis.role)];
        if (rank < 0)
            continue;
        axes.push_back(axis.name);
        differs = differs || rank < previous;
        previous = std::max(previous, rank);
    }
    if (!differs)
        return "";
    return "# " + framework + " orders the devices " + frameworkOrder + " (outer to inner), the mesh " +
           join(axes, ", ") + ": its groups hold other devices than the plan's (other links).\n";
}

// The first layer of every chunk but the first.
std::vector<std::string> splitPoints(const TrainingParallelism& p) {
    std::vector<std::string> out;
    std::size_t layer = 0;
    for (std::size_t c = 0; p.pipeline && c + 1 < p.pipeline->layersPerStage.size(); ++c) {
        layer += static_cast<std::size_t>(p.pipeline->layersPerStage[c]);
        if (layer < p.layers.size())
            out.push_back(p.layers[layer]);
    }
    return out;
}

// The one policy of every layer, or none when they differ.
std::optional<plan::Remat> uniformRemat(const TrainingParallelism& p) {
    if (p.remat.empty())
        return plan::Remat::None;
    for (const plan::Remat r : p.remat)
        if (r != p.remat.front())
            return std::nullopt;
    return p.remat.front();
}

std::string rematSummary(const TrainingParallelism& p) {
    std::map<plan::Remat, int> count;
    for (const plan::Remat r : p.remat)
        ++count[r];
    std::vector<std::string> parts;
    parts.reserve(count.size());
    for (const auto& [policy, n] : count)
        parts.push_back(std::string(plan::toString(policy)) + " on " + std::to_string(n));
    return join(parts, ", ") + " of " + std::to_string(p.remat.size()) + " layers";
}

std::int64_t dataParallel(const TrainingParallelism& p) {
    return p.dataReplicate * p.dataShard;
}

struct Writer {
    std::ostringstream text;
    std::vector<std::string> lost;
    std::string indent;
    void loses(const std::string& what) {
        text << indent << "# lost: " << what << "\n";
        lost.push_back(what);
    }
};

}  // namespace

FrameworkConfig torchTitanConfig(const TrainingParallelism& p, const std::string& title) {
    Writer w;
    std::ostringstream& out = w.text;
    out << "# Generated by Shardscope: " << title << " as TorchTitan job config sections\n"
        << "# (torchtitan/config/job_config.py with pipeline_parallel_split_points); merge them into the "
           "train config.\n";
    // Ranks by Role: None, DataReplicate, DataShard, Tensor, Context, Pipeline.
    out << orderNote(p, RoleOrder{-1, 1, 2, 4, 3, 0}, "TorchTitan", "pp, dp_replicate, dp_shard, cp, tp");
    for (const std::string& l : p.lost)
        w.loses(l);
    out << "\n[parallelism]\n"
        << "data_parallel_replicate_degree = " << p.dataReplicate << "\n"
        << "data_parallel_shard_degree = " << p.dataShard << "\n"
        << "tensor_parallel_degree = " << p.tensor << "\n"
        << "context_parallel_degree = " << p.context << "\n";
    if (p.expert > 1)
        out << "expert_parallel_degree = " << p.expert << "\n";
    if (p.tensor > 1 && !p.sequenceParallel)
        w.loses(
            "tensor parallelism without sequence parallelism: TorchTitan's tensor parallel plan shards the "
            "norms' activations on the sequence (newer TorchTitan: enable_sequence_parallel = false)");
    switch (p.optimizerSharding) {
        case TrainingParallelism::OptimizerSharding::None:
            break;
        case TrainingParallelism::OptimizerSharding::States:
        case TrainingParallelism::OptimizerSharding::StatesAndGradients:
            w.loses(std::string(p.optimizerSharding == TrainingParallelism::OptimizerSharding::States
                                    ? "ZeRO-1 (optimizer states"
                                    : "ZeRO-2 (optimizer states and gradients") +
                    " sharded over the data axes, parameters replicated): TorchTitan shards all three "
                    "(data_parallel_shard_degree) or none");
            break;
    }
    const std::int64_t dp = dataParallel(p);
    const std::int64_t local = p.batch > 0 && p.batch % dp == 0 ? p.batch / dp : 0;
    if (p.pipeline) {
        const plan::Pipeline& pipeline = *p.pipeline;
        out << "pipeline_parallel_degree = " << pipeline.stages << "\n";
        switch (pipeline.schedule) {
            case plan::PipelineSchedule::GPipe:
                out << "pipeline_parallel_schedule = \"GPipe\"\n";
                break;
            case plan::PipelineSchedule::OneFOneB:
                out << "pipeline_parallel_schedule = \"1F1B\"\n";
                break;
            case plan::PipelineSchedule::Interleaved:
                out << "pipeline_parallel_schedule = \"Interleaved1F1B\"  # " << pipeline.virtualStages
                    << " stages per rank\n";
                break;
        }
        const std::vector<std::string> points = splitPoints(p);
        if (!pipeline.layersPerStage.empty()) {
            std::vector<std::string> quotedPoints;
            quotedPoints.reserve(points.size());
            for (const std::string& point : points)
                quotedPoints.push_back(quoted(point));
            out << "# layers per stage " << intList(pipeline.layersPerStage)
                << "; the embedding goes with the first stage, the head and the loss with the last\n"
                << "pipeline_parallel_split_points = [" << join(quotedPoints, ", ") << "]\n";
        }
        if (local > 0 && local % p.microbatches == 0)
            out << "pipeline_parallel_microbatch_size = " << local / p.microbatches << "  # "
                << p.microbatches << " microbatches of the local batch\n";
        else
            w.loses(std::to_string(p.microbatches) +
                    " microbatches: the local batch does not divide into them");
    } else {
        out << "pipeline_parallel_degree = 1\n";
    }
    out << "\n[training]\n";
    if (p.batch <= 0) {
        w.loses("the batch: the model has no batch dimension");
    } else if (local == 0) {
        w.loses("the batch of " + std::to_string(p.batch) + " does not divide over the " +
                std::to_string(dp) + " data-parallel ranks");
    } else if (!p.pipeline && p.microbatches > 1) {
        if (local % p.microbatches == 0)
            out << "local_batch_size = " << local / p.microbatches << "\n"
                << "global_batch_size = " << p.batch << "  # " << p.microbatches
                << " gradient accumulation steps (global / (local × data-parallel degree))\n";
        else
            w.loses(std::to_string(p.microbatches) +
                    " microbatches: the local batch does not divide into them");
    } else {
        out << "local_batch_size = " << local << "\n"
            << "global_batch_size = " << p.batch << "\n";
    }
    out << "\n[activation_checkpoint]\n";
    const std::optional<plan::Remat> remat = uniformRemat(p);
    if (remat == plan::Remat::None) {
        out << "mode = \"none\"\n";
    } else if (remat == plan::Remat::Full) {
        out << "mode = \"full\"\n";
    } else {
        out << "mode = \"none\"\n";
        if (remat == plan::Remat::Selective)
            w.loses(
                "selective remat (the attention core recomputed): no TorchTitan mode; its SDPA attention "
                "never stores the core (mode = \"selective\" with selective_ac_option = \"op\" recomputes "
                "other ops)");
        else if (remat == plan::Remat::DotsSaveable)
            w.loses(
                "dots-saveable remat: no TorchTitan mode (mode = \"selective\" with selective_ac_option = "
                "\"op\" saves the matmuls it chooses and the attention, recomputing the rest)");
        else
            w.loses("remat differs between layers (" + rematSummary(p) +
                    "): TorchTitan's mode applies to every layer");
    }
    return {out.str(), std::move(w.lost)};
}

FrameworkConfig megatronArguments(const TrainingParallelism& p, const std::string& title) {
    Writer w;
    std::ostringstream& out = w.text;
    const std::int64_t dp = dataParallel(p);
    const int stages = p.pipeline ? p.pipeline->stages : 1;
    out << "# Generated by Shardscope: " << title << " as Megatron-LM arguments\n"
        << "# (megatron/training/arguments.py). The data-parallel size is what is left: " << p.devices
        << " devices / (tensor " << p.tensor << " x pipeline " << stages << " x context " << p.context
        << ") = " << p.devices / std::max<std::int64_t>(1, p.tensor * stages * p.context) << ".\n";
    out << orderNote(p, RoleOrder{-1, 1, 1, 3, 2, 0}, "Megatron-LM", "pp, dp, cp, tp");
    out << "PARALLEL_ARGS=(\n";
    w.indent = "    ";
    for (const std::string& l : p.lost)
        w.loses(l);
    if (!p.layers.empty())
        out << "    --num-layers " << p.layers.size() << "\n";
    out << "    --tensor-model-parallel-size " << p.tensor << "\n";
    if (p.sequenceParallel)
        out << "    --sequence-parallel\n";
    if (p.context > 1)
        out << "    --context-parallel-size " << p.context << "\n";
    if (p.expert > 1)
        out << "    --expert-model-parallel-size " << p.expert << "\n";
    out << "    --pipeline-model-parallel-size " << stages << "\n";
    if (p.pipeline) {
        const plan::Pipeline& pipeline = *p.pipeline;
        const std::vector<int>& split = pipeline.layersPerStage;
        const bool equal = !split.empty() &&
                           std::all_of(split.begin(), split.end(), [&](int n) { return n == split.front(); });
        if (pipeline.schedule == plan::PipelineSchedule::GPipe)
            w.loses(
                "the GPipe schedule: Megatron-LM runs 1F1B (the same bubble, at most p microbatches' "
                "activations kept instead of all)");
        if (pipeline.schedule == plan::PipelineSchedule::Interleaved) {
            if (equal)
                out << "    --num-layers-per-virtual-pipeline-stage " << split.front() << "  # "
                    << pipeline.virtualStages << " chunks per stage, interleaved\n";
            else
                w.loses("the interleaved split " + intList(split) +
                        ": Megatron-LM's virtual stages hold equal numbers of layers");
        } else if (!split.empty() && !equal) {
            // Megatron-LM spreads the layers the first and last stages do not take evenly over the others.
            const int first = split.front(), last = split.back();
            const bool middleEqual = split.size() > 2 && std::all_of(split.begin() + 1, split.end() - 1,
                                                                     [&](int n) { return n == split[1]; });
            if (split.size() == 2 || middleEqual) {
                const int middle = split.size() > 2 ? split[1] : -1;
                if (split.size() == 2 || first != middle)
                    out << "    --decoder-first-pipeline-num-layers " << first << "\n";
                if (split.size() == 2 || last != middle)
                    out << "    --decoder-last-pipeline-num-layers " << last << "\n";
            } else {
                w.loses("the layer split " + intList(split) +
                        ": Megatron-LM splits evenly, apart from the first and last stages");
            }
        }
    }
    const std::int64_t local = p.batch > 0 && p.batch % dp == 0 ? p.batch / dp : 0;
    if (p.batch <= 0)
        w.loses("the batch: the model has no batch dimension");
    else if (local == 0 || local % p.microbatches != 0)
        w.loses("the batch of " + std::to_string(p.batch) + " does not divide into " + std::to_string(dp) +
                " data-parallel ranks x " + std::to_string(p.microbatches) + " microbatches");
    else
        out << "    --micro-batch-size " << local / p.microbatches << "\n"
            << "    --global-batch-size " << p.batch << "  # " << p.microbatches << " microbatch"
            << (p.microbatches == 1 ? "" : "es") << " per step\n";
    if (p.optimizerSharding != TrainingParallelism::OptimizerSharding::None)
        out << "    --use-distributed-optimizer  # optimizer states sharded over the data-parallel ranks "
               "(ZeRO-1)"
            << (p.optimizerSharding == TrainingParallelism::OptimizerSharding::StatesAndGradients
                    ? "; gradients reduce-scattered to them (ZeRO-2's communication)"
                    : "")
            << "\n";
    if (p.dataShard > 1) {
        out << "    --use-torch-fsdp2  # parameters sharded over the data-parallel ranks\n";
        if (p.dataReplicate > 1)
            w.loses("hybrid sharding (parameters sharded over " + std::to_string(p.dataShard) +
                    " ranks, replicated over " + std::to_string(p.dataReplicate) +
                    "): Megatron-LM's FSDP shards over every data-parallel rank");
        if (p.pipeline)
            w.loses("FSDP with a pipeline: Megatron-LM's torch FSDP2 does not run with pipeline parallelism");
    }
    const std::optional<plan::Remat> remat = uniformRemat(p);
    if (remat == plan::Remat::Full) {
        out << "    --recompute-granularity full\n    --recompute-method uniform\n    --recompute-num-layers "
               "1\n";
    } else if (remat == plan::Remat::Selective) {
        out << "    --recompute-granularity selective  # the core attention, as Korthikanti et al.\n";
    } else if (remat == plan::Remat::DotsSaveable) {
        w.loses("dots-saveable remat: no Megatron-LM granularity keeps the matmul outputs only");
    } else if (!remat) {
        // Full on the first N layers of every chunk (the rest none) is Megatron-LM's block method.
        std::vector<int> chunks = p.pipeline && !p.pipeline->layersPerStage.empty()
                                      ? p.pipeline->layersPerStage
                                      : std::vector<int>{static_cast<int>(p.remat.size())};
        int recomputed = -1;
        std::size_t layer = 0;
        for (const int n : chunks) {
            int full = 0;
            while (full < n && p.remat[layer + static_cast<std::size_t>(full)] == plan::Remat::Full)
                ++full;
            bool rest = true;
            for (int i = full; i < n; ++i)
                rest = rest && p.remat[layer + static_cast<std::size_t>(i)] == plan::Remat::None;
            recomputed = rest && (recomputed < 0 || recomputed == full) ? full : -2;
            layer += static_cast<std::size_t>(n);
            if (recomputed == -2)
                break;
        }
        if (recomputed > 0)
            out << "    --recompute-granularity full\n    --recompute-method block\n    "
                   "--recompute-num-layers "
                << recomputed << "  # the first layers of every " << (p.pipeline ? "stage" : "model") << "\n";
        else
            w.loses("remat differs between layers (" + rematSummary(p) +
                    "): Megatron-LM recomputes every layer alike or the first N of every stage");
    }
    out << ")\n# e.g. torchrun --nproc-per-node ... pretrain_gpt.py \"${PARALLEL_ARGS[@]}\" ...\n";
    return {out.str(), std::move(w.lost)};
}

}  // namespace shardscope::exporting
