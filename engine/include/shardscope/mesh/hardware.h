// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Hardware profiles (docs/design.md, "Plans"): what one accelerator computes, holds and moves per second, how
// many of them share the fast link, and where every figure comes from.
//
// Profiles are data, not code. The built-in ones are the files under resources/hardware/, compiled into the
// engine; users load their own with the same format:
//
//   {
//     "format": "shardscope-hardware", "version": 1,
//     "id": "h100", "display_name": "NVIDIA H100 SXM5 80 GB",
//     "peak_flops_per_s": {"bf16": 989e12, "f32": 67e12, ...},   // dense FLOP/s; keys are MLIR element types
//     "hbm_bandwidth_bytes_per_s": 3.35e12,
//     "memory_bytes": 80e9,
//     "devices_per_domain": 8,
//     "fast_link": {"name": "NVLink 4", "bandwidth_bytes_per_s": 450e9, "latency_s": 2e-6},
//     "slow_link": {"name": "InfiniBand NDR", "bandwidth_bytes_per_s": 50e9, "latency_s": 8e-6},
//     // or, instead of devices_per_domain, fast_link and slow_link, two to kMaxLinkLevels link levels,
//     // innermost first; every level but the last says how many devices it joins (the levels inside it
//     // included); the last joins everything:
//     // "link_levels": [{"name": "NVLink 4", "devices": 8, "bandwidth_bytes_per_s": 450e9, "latency_s":
//     2e-6},
//     //                 {"name": "InfiniBand NDR", "devices": 256, "bandwidth_bytes_per_s": 50e9, ...},
//     //                 {"name": "Data-centre network", "bandwidth_bytes_per_s": 25e9, "latency_s": 15e-6}],
//     "efficiency": {                               // optional: defaultEfficiency() when absent
//       "matmul": [[1, 0.00431], ..., [64, 0.276], [128, 0.552], ..., [2048, 0.803]],  // [min(m,n,k), eff]
//       "memory": [[65536, 0.0191], ..., [1073741824, 0.897]]                          // [bytes, eff]
//     },
//     "citations": [{"what": "memory_bytes, hbm_bandwidth_bytes_per_s", "source": "https://...", "note":
//     "..."}]
//   }
//
// Every key is required except "efficiency", "citations", a citation's "note" and the choice between
// "link_levels" and the three keys it replaces (exactly one of the two forms); keys starting with '_'
// are comments and are ignored; any other unknown key is an error (it is usually a misspelt one).
//
// "efficiency" holds two curves of the fraction of peak a kernel reaches, as [size, fraction] pairs:
//  - "matmul": size = the smallest of a dot's local m (rows, every batch dimension folded in), n (columns)
//    and k (contraction); the fraction applies to peak(dtype). Small or skinny GEMMs reach less of peak
//    (tile quantization, pipeline fill); the curve is written for the other two dimensions being large.
//  - "memory": size = bytes the kernel reads and writes in HBM; the fraction applies to
//    hbm_bandwidth_bytes_per_s (small transfers do not cover the memory latency and ramp).
// Between two entries the fraction is linear in log2(size); below the first and above the last entry it
// stays at that entry's value. Each table has 1 to 64 entries; each entry is a pair of finite numbers,
// size > 0 strictly increasing, fraction in (0, 1]. A citation whose `what` names "efficiency" covers both
// tables, "efficiency.matmul" or "efficiency.memory" one of them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shardscope/diagnostic.h"
#include "shardscope/ir/types.h"

namespace shardscope::mesh {

// What one device sees on a link: bytes per second it can send in one direction while receiving as much,
// and the fixed cost in seconds of one step of a collective (one ring hop).
struct Link {
    double bandwidth = 0;  // bytes/s per device, one direction
    double latency = 0;    // seconds
    friend bool operator==(const Link&, const Link&) = default;
};

// Where a figure comes from. `what` lists the key paths it supports, separated by commas
// ("memory_bytes, fast_link.bandwidth_bytes_per_s"); a group key ("peak_flops_per_s", "fast_link") covers all
// of the group's figures. `note` holds the arithmetic from the published figure to ours, when there is any.
struct Citation {
    std::string what;
    std::string source;  // URL or document
    std::string note;    // optional
    friend bool operator==(const Citation&, const Citation&) = default;
};

// A profile has at most this many link levels (a node, a rail group, a pod, a data centre, ...).
inline constexpr int kMaxLinkLevels = 8;

// One level of the network: the devices it joins and what one device sees on it.
struct LinkLevel {
    std::string name;          // "NVLink 4 through NVSwitch"
    std::int64_t devices = 0;  // devices joined, the inner levels' included; 0: unbounded (the last level)
    Link link;
    friend bool operator==(const LinkLevel&, const LinkLevel&) = default;
};

// One entry of an efficiency curve: a kernel of size `x` reaches `efficiency` of the peak.
struct EfficiencyPoint {
    double x = 0;           // matmul: smallest local GEMM dimension; memory: bytes moved
    double efficiency = 0;  // fraction of peak, in (0, 1]
    friend bool operator==(const EfficiencyPoint&, const EfficiencyPoint&) = default;
};

// A curve through its points, piecewise linear in log2(x) and flat beyond both ends.
struct EfficiencyCurve {
    std::vector<EfficiencyPoint> points;  // x strictly increasing

    // The fraction at size `x`: the first point's for x at or below the first x (also for x <= 0 or NaN),
    // the last point's at or above the last x, else interpolated linearly in log2(x) between the two
    // neighbouring points. 1 when there are no points. Allocates nothing; walks the points once.
    double at(double x) const;

    friend bool operator==(const EfficiencyCurve&, const EfficiencyCurve&) = default;
};

struct EfficiencyTables {
    EfficiencyCurve matmul;  // keyed on min(m, n, k) of the local GEMM
    EfficiencyCurve memory;  // keyed on the bytes a kernel moves
    friend bool operator==(const EfficiencyTables&, const EfficiencyTables&) = default;
};

// The curves of a profile without an "efficiency" key: a generic GPU-like accelerator reaching 0.7 of
// peak (docs/cost-model.md's former single efficiency) on large GEMMs and large transfers.
//  - matmul: 0.7 for a smallest dimension of 2048 or more; below, 0.7 · r(d) / r(2048) with
//    r(d) = d / (d + 64) for d >= 128 (a fixed per-tile pipeline cost of about one 64-deep K block) and
//    r(d) = d / 192 below 128 (tile quantization: a 128-wide tile does full work for d useful rows, so the
//    time stops falling). Tabulated at every power of two from 1 to 2048: 0.24 at 64, 0.48 at 128.
//  - memory: 0.7 · B / (B + 2.1e6): a fixed 1 µs of latency and ramp per kernel at 0.7 · 3 TB/s,
//    tabulated at 4^8 .. 4^15 bytes (64 KiB .. 1 GiB): 0.23 at 1 MiB, 0.62 at 16 MiB, 0.7 at 1 GiB.
// The built-in profiles carry their own, cited curves.
const EfficiencyTables& defaultEfficiency();

struct HardwareProfile {
    std::string id;           // "h100"
    std::string displayName;  // "NVIDIA H100 SXM5 80 GB"
    // Dense (no structured sparsity) FLOP/s per element type; see peak() for the types not listed.
    std::map<ir::ElementType, double> peakFlops;
    double hbmBandwidth = 0;            // bytes/s
    double memoryBytes = 0;             // device memory, bytes
    std::int64_t devicesPerDomain = 1;  // devices joined by the fast link: an NVLink node; a TPU slice
    Link fastLink;                      // NVLink / ICI, per device per direction, for one mesh axis
    Link slowLink;                      // InfiniBand / DCN across domains
    std::string fastLinkName;           // "NVLink 4 through NVSwitch"
    std::string slowLinkName;           // "InfiniBand NDR, 400 Gb/s per GPU"
    // Devices the slow link joins (0: unbounded) and the levels beyond it, innermost first, the last one
    // unbounded: a profile with more than two link levels ("link_levels" with three or more entries).
    std::int64_t slowLinkDevices = 0;
    std::vector<LinkLevel> outerLevels;
    std::optional<EfficiencyTables> efficiency;  // the profile's "efficiency"; nullopt: defaultEfficiency()
    std::vector<Citation> citations;

    // The peak FLOP/s of an op computing in `type`. A type with its own entry gets it; otherwise:
    //  - an f8 type takes another f8 entry (f8E4M3FN first, then f8E5M2, then the FNUZ kinds), else bf16,
    //    else f16 (a part without f8 units computes f8 at its 16-bit rate);
    //  - f16 takes bf16 and bf16 takes f16;
    //  - i2, i4, ui2, ui4, ui8 take i8;
    //  - everything else (f32, f64, complex, i1/bool, i16, i32, i64, their unsigned kinds, index, token) and
    //    any type whose rule above found nothing takes f32.
    // When there is no f32 entry either, the smallest entry is the answer (a conservative guess); 0 when
    // the table is empty.
    double peak(ir::ElementType type) const;

    // The fraction of peak(type) a GEMM with local sizes m (rows, batch dimensions folded in), n (columns)
    // and k (contraction) reaches: the matmul curve at min(m, n, k). Fast: no allocation, one short walk.
    double matmulEfficiency(double m, double n, double k) const;
    // The fraction of hbmBandwidth a kernel moving `bytes` (read plus written) reaches: the memory curve
    // at `bytes`. Fast: no allocation, one short walk.
    double memoryEfficiency(double bytes) const;
    // The tables in effect: `efficiency` when the profile has them, else defaultEfficiency().
    const EfficiencyTables& efficiencyTables() const;
    // Every link level, innermost first: {fast link, devicesPerDomain}, {slow link, slowLinkDevices}, then
    // outerLevels. The last level's devices is 0 (unbounded).
    std::vector<LinkLevel> linkLevels() const;

    friend bool operator==(const HardwareProfile&, const HardwareProfile&) = default;
};

// The profiles under resources/hardware/, parsed once on first use, sorted by id (a100, h100,
// h100-2pods, h100-96gb-500w, h200, tpu-v4, tpu-v5e, tpu-v5p). Thread-safe.
const std::vector<HardwareProfile>& builtinHardware();

// Parses a profile in the format above. `origin` names the text in errors ("h100.json: 'memory_bytes' must be
// a positive number", "h100.json: 'efficiency.matmul[2]': the efficiency must be a number in (0, 1]").
// Checks that every number is finite and positive (latencies may be 0), devices_per_domain a positive
// integer, link levels as described above (devices strictly increasing, each level's a multiple of the
// one inside it), every peak key an element type, the efficiency tables as described above, and every
// citation's `what` a key path of the format.
Result<HardwareProfile> parseHardware(std::string_view jsonText, std::string_view origin);

// A built-in profile by id, compared case-insensitively ("H100"), or else the profile in the JSON file at
// that path. A name that is neither gives an error listing the built-in ids.
Result<HardwareProfile> loadHardware(std::string_view idOrPath);

// The profile in the format above, numbers in their shortest exact form: parseHardware(toJson(p), ...)
// returns p.
std::string toJson(const HardwareProfile& profile);

// The key paths of the figures ("peak_flops_per_s.bf16", "fast_link.latency_s", "efficiency.matmul", ...)
// that no citation covers, in file order; empty when every number is cited. The efficiency tables count
// only when the profile has them (the default curves are documented here, not cited per profile).
std::vector<std::string> uncitedFigures(const HardwareProfile& profile);

}  // namespace shardscope::mesh
