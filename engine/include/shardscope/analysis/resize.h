// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Global batch and sequence length for models exported at another size (issue 19, part 3). A model exported
// with batch 1 and 128 tokens is planned at the batch and sequence it trains with: the names of the static
// analysis (decision_space.h) say which dimensions carry the batch and the sequence, through every reshape
// that merges or splits them, and resizing scales those names and re-derives every shape of the graph from
// them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "shardscope/diagnostic.h"
#include "shardscope/ir/graph.h"

namespace shardscope::analysis {

// Sizes by key ("batch" -> 256, "seq" -> 4096), as the user sets them.
using GlobalSizes = std::map<std::string, std::int64_t>;

// The key `key` stands for: "batch", or "seq" (also written "sequence"); "" for anything else.
std::string_view canonicalSizeKey(std::string_view key);

// Parses "batch=256,seq=4096" (spaces around items allowed; "" is no sizes). Keys are canonical in the
// result. Errors (code resize.syntax) name the item: not KEY=VALUE, an unknown key (listing batch and seq), a
// value that is not a positive integer, a key set twice.
Result<GlobalSizes> parseGlobalSizes(std::string_view text);
// "batch=256,seq=4096" (parseGlobalSizes' inverse; keys in map order).
std::string globalSizesText(const GlobalSizes& sizes);

// What a resize did to one key.
struct SizeChange {
    std::string key;                 // "batch", "seq"
    std::int64_t from = 0, to = 0;   // the size of the dimension that carries it (an input's, when one does)
    std::vector<std::string> names;  // the names scaled ("seq", "seq#2"); empty for a batch of one (no name)
    friend bool operator==(const SizeChange&, const SizeChange&) = default;
};

struct ResizeSummary {
    std::vector<SizeChange> changes;  // one per key, in key order
    std::size_t tensors = 0;          // values whose shape changed
    std::size_t attributes = 0;       // ops whose size attributes changed (slice bounds, slice sizes, ...)
    std::size_t broadcasts = 0;       // broadcasts added where a batch of one met a tensor without a batch
    // "batch 1 -> 256, seq 128 -> 4096 (812 tensors, 3 op attributes, 25 broadcasts)".
    std::string toString() const;
};

struct Resized {
    ir::Graph graph;
    ResizeSummary summary;
};

// The graph at the sizes `sizes` (keys as canonicalSizeKey). Which dimensions change:
// - the names whose label is the key's role ("batch", "seq", also "seq#2" and per-layer "layers.3.seq";
// ONNX's
//   "batch_size", "sequence_length", ...) take the new size. When a dimension of an input carries the name,
//   the key's size is that dimension's: where reshapes split it into the name and other atoms (128 tokens as
//   64 x 2), the name takes the new size divided by the other atoms, which must divide it. Names of the role
//   with another size are left alone, with a warning;
// - names cut from a resized one by a slice that trims a border (tokens[1:], keeping more than half) or grown
//   from it by a pad follow it, so the border keeps its width;
// - a batch of one has no name: the leading size-1 dimension of each input (or an argument dimension labelled
//   "batch") is the batch, followed through every op; where it meets a tensor without one (a position table,
//   a splat constant of the export's shape) that tensor is broadcast, as the framework would have.
// Then every op's shape is derived again: result types from the names (reshape, broadcast_in_dim, iota,
// constant, custom_call), op attributes that encode a size follow (slice bounds: a slice of the whole
// dimension stays whole, one anchored at the end stays at the end; dynamic_slice and gather slice sizes of a
// whole dimension), and the result is verified (ir::verifyGraph). Errors name the op (its mnemonic and
// location) and why: a key this model has no dimension for (code resize.key, listing the keys it takes), a
// size not positive or that the split atoms do not divide (resize.size), a non-splat constant whose shape
// changes (resize.constant), an op whose shapes cannot follow (resize.op: a reshape whose element counts no
// longer agree, a slice past its operand), sizes past 2^62 elements (resize.overflow). Warnings come with the
// result. Empty `sizes` returns the graph unchanged.
Result<Resized> resize(const ir::Graph& graph, const GlobalSizes& sizes);

}  // namespace shardscope::analysis
