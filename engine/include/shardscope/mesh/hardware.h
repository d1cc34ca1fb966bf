// Hardware profiles (DESIGN.md §4): what one accelerator computes, holds and moves per second, how many of
// them share the fast link, and where every figure comes from.
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
//     "citations": [{"what": "memory_bytes, hbm_bandwidth_bytes_per_s", "source": "https://...", "note":
//     "..."}]
//   }
//
// Every key is required except "citations" and a citation's "note"; keys starting with '_' are comments and
// are ignored; any other unknown key is an error (it is usually a misspelt one).
#pragma once

#include <cstdint>
#include <map>
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

    friend bool operator==(const HardwareProfile&, const HardwareProfile&) = default;
};

// The profiles under resources/hardware/, parsed once on first use, sorted by id (a100, h100, h200, tpu-v4,
// tpu-v5e, tpu-v5p). Thread-safe.
const std::vector<HardwareProfile>& builtinHardware();

// Parses a profile in the format above. `origin` names the text in errors ("h100.json: 'memory_bytes' must be
// a positive number"). Checks that every number is finite and positive (latencies may be 0),
// devices_per_domain a positive integer, every peak key an element type, and every citation's `what` a key
// path of the format.
Result<HardwareProfile> parseHardware(std::string_view jsonText, std::string_view origin);

// A built-in profile by id, compared case-insensitively ("H100"), or else the profile in the JSON file at
// that path. A name that is neither gives an error listing the built-in ids.
Result<HardwareProfile> loadHardware(std::string_view idOrPath);

// The profile in the format above, numbers in their shortest exact form: parseHardware(toJson(p), ...)
// returns p.
std::string toJson(const HardwareProfile& profile);

// The key paths of the figures ("peak_flops_per_s.bf16", "fast_link.latency_s", ...) that no citation covers,
// in file order; empty when every number is cited.
std::vector<std::string> uncitedFigures(const HardwareProfile& profile);

}  // namespace shardscope::mesh
