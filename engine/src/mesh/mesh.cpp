// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/mesh/mesh.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>

#include "mesh/json_text.h"

namespace shardscope::mesh {
namespace {

constexpr std::int64_t kMaxDevices = std::int64_t{1} << 40;
const std::string kSpecCode = "mesh.spec";
const std::string kParseCode = "mesh.parse";
const std::string kUsage = "--mesh expects name=size,... (e.g. data=8,model=4)";

std::string_view trim(std::string_view text) {
    const auto begin = text.find_first_not_of(" \t");
    if (begin == std::string_view::npos)
        return {};
    const auto end = text.find_last_not_of(" \t");
    return text.substr(begin, end - begin + 1);
}

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (true) {
        const auto at = text.find(separator, start);
        parts.push_back(
            text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
        if (at == std::string_view::npos)
            return parts;
        start = at + 1;
    }
}

template <typename T>
std::optional<T> parseNumber(std::string_view text) {
    T value{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc{} || end != text.data() + text.size())
        return std::nullopt;
    return value;
}

// The rules makeMesh and parseMesh share; the message of the first broken one.
std::optional<std::string> checkAxes(const std::vector<MeshAxis>& axes) {
    if (axes.empty())
        return "a mesh needs at least one axis";
    if (axes.size() > static_cast<std::size_t>(kMaxMeshAxes))
        return "a mesh has at most " + std::to_string(kMaxMeshAxes) + " axes, got " +
               std::to_string(axes.size());
    std::int64_t devices = 1;
    for (std::size_t i = 0; i < axes.size(); ++i) {
        const MeshAxis& axis = axes[i];
        if (axis.size < 1)
            return "mesh axis '" + axis.name + "' has size " + std::to_string(axis.size) +
                   "; sizes must be at least 1";
        for (std::size_t j = 0; j < i; ++j)
            if (axes[j].name == axis.name)
                return "mesh axis '" + axis.name + "' appears twice";
        if (axis.size > kMaxDevices / devices)
            return "the mesh has more than 2^40 devices";
        devices *= axis.size;
    }
    return std::nullopt;
}

nlohmann::ordered_json axisJson(const MeshAxis& axis) {
    nlohmann::ordered_json j;
    j["name"] = axis.name;
    j["size"] = axis.size;
    if (axis.levels.empty()) {
        j["bandwidth_bytes_per_s"] = axis.link.bandwidth;
        j["latency_s"] = axis.link.latency;
        return j;
    }
    nlohmann::ordered_json levels = nlohmann::ordered_json::array();
    for (const AxisLevel& level : axis.levels) {
        nlohmann::ordered_json entry;
        entry["devices"] = level.devices;
        entry["bandwidth_bytes_per_s"] = level.link.bandwidth;
        entry["latency_s"] = level.link.latency;
        levels.push_back(std::move(entry));
    }
    j["levels"] = std::move(levels);
    return j;
}

// How many of an axis's `size` positions, `stride` devices apart, one block of `block` consecutive devices
// holds (makeMesh's m_j); `inner` is the answer for the level inside, kept when the layout is irregular.
std::int64_t positionsInBlock(std::int64_t stride, std::int64_t size, std::int64_t block,
                              std::int64_t inner) {
    if (block % (stride * size) == 0)
        return size;
    if (stride % block == 0)
        return 1;
    if (block % stride == 0 && size % (block / stride) == 0 && (block / stride) % inner == 0)
        return block / stride;
    return inner;
}

// The axis at `stride` laid out on `levels`: its pieces by level (factors of 1 left out), or one piece on the
// level chosen by the single-level rule when the factors leave it on one level.
std::vector<AxisLevel> layOut(std::int64_t stride, std::int64_t size, std::int64_t meshDevices,
                              const std::vector<LinkLevel>& levels) {
    std::vector<AxisLevel> pieces;
    std::int64_t inner = 1;
    for (std::size_t j = 0; j < levels.size(); ++j) {
        const std::int64_t block = levels[j].devices;
        const bool last = block <= 0 || j + 1 == levels.size();
        const std::int64_t held =
            last || meshDevices <= block ? size : positionsInBlock(stride, size, block, inner);
        if (held / inner > 1)
            pieces.push_back(AxisLevel{held / inner, levels[j].link});
        inner = held;
        if (inner == size)
            break;
    }
    if (pieces.size() > 1)
        return pieces;
    // One level (or a size-1 axis): the innermost level that holds the whole axis, as with two levels.
    const std::int64_t span = stride * size;
    for (const LinkLevel& level : levels)
        if (level.devices <= 0 || meshDevices <= level.devices ||
            (span <= level.devices && level.devices % span == 0))
            return {AxisLevel{size, level.link}};
    return {AxisLevel{size, levels.back().link}};
}

// The bandwidth and latency of the axis or level object at `path`; the message when they are wrong.
std::optional<std::string> readLink(const nlohmann::json& object, const std::string& path, Link& link) {
    const auto bandwidth = detail::numberAt(object, "bandwidth_bytes_per_s");
    if (!bandwidth || !(*bandwidth > 0))
        return "'" + path + ".bandwidth_bytes_per_s' must be a positive number";
    if (const auto trouble = detail::figureTrouble(*bandwidth))
        return "'" + path + ".bandwidth_bytes_per_s' must be a positive number: " + *trouble;
    link.bandwidth = *bandwidth;
    const auto latency = detail::numberAt(object, "latency_s");
    if (!latency || *latency < 0)
        return "'" + path + ".latency_s' must be a non-negative number";
    if (const auto trouble = detail::figureTrouble(*latency))
        return "'" + path + ".latency_s' must be a non-negative number: " + *trouble;
    link.latency = *latency;
    return std::nullopt;
}

}  // namespace

std::int64_t Mesh::devices() const {
    std::int64_t n = 1;
    for (const auto& axis : axes)
        n *= axis.size;
    return n;
}

std::optional<int> Mesh::axisIndex(std::string_view name) const {
    for (std::size_t i = 0; i < axes.size(); ++i)
        if (axes[i].name == name)
            return static_cast<int>(i);
    return std::nullopt;
}

std::string Mesh::toString() const {
    std::string out;
    for (const auto& axis : axes)
        out += (out.empty() ? "" : ",") + axis.name + "=" + std::to_string(axis.size);
    return out;
}

Result<Mesh> makeMesh(std::string_view spec, const HardwareProfile& hardware) {
    if (trim(spec).empty())
        return makeError(kSpecCode, kUsage + ", got an empty mesh");
    struct Override {
        std::optional<double> bandwidth, latency;
    };
    Mesh mesh;
    std::vector<Override> overrides;
    for (std::string_view item : split(spec, ',')) {
        item = trim(item);
        if (item.empty())
            return makeError(kSpecCode, kUsage + ", got an empty axis in '" + std::string(spec) + "'");
        const std::vector<std::string_view> parts = split(item, ':');
        const std::string_view head = parts.front();
        const auto equals = head.find('=');
        const auto name = trim(head.substr(0, equals));
        const auto size = equals == std::string_view::npos
                              ? std::nullopt
                              : parseNumber<std::int64_t>(trim(head.substr(equals + 1)));
        if (!size || !detail::isIdentifier(name))
            return makeError(kSpecCode, kUsage + ", got '" + std::string(item) + "'");
        const std::string axisName(name);
        Override axisOverride;
        for (std::size_t i = 1; i < parts.size(); ++i) {
            const std::string_view option = trim(parts[i]);
            const auto optionEquals = option.find('=');
            const auto key = trim(option.substr(0, optionEquals));
            const auto valueText = optionEquals == std::string_view::npos
                                       ? std::string_view{}
                                       : trim(option.substr(optionEquals + 1));
            const auto value = parseNumber<double>(valueText);
            const std::string where = "mesh axis '" + axisName + "': ";
            if (key == "bw") {
                if (axisOverride.bandwidth)
                    return makeError(kSpecCode, where + "'bw' given twice");
                if (!value || !std::isfinite(*value) || !(*value > 0) || detail::figureTrouble(*value))
                    return makeError(kSpecCode, where + "bw must be a positive number of bytes/s, got '" +
                                                    std::string(valueText) + "'" +
                                                    (value && detail::figureTrouble(*value)
                                                         ? " (" + *detail::figureTrouble(*value) + ")"
                                                         : ""));
                axisOverride.bandwidth = value;
            } else if (key == "lat") {
                if (axisOverride.latency)
                    return makeError(kSpecCode, where + "'lat' given twice");
                if (!value || !std::isfinite(*value) || *value < 0 || detail::figureTrouble(*value))
                    return makeError(kSpecCode, where +
                                                    "lat must be a non-negative number of seconds, got '" +
                                                    std::string(valueText) + "'" +
                                                    (value && detail::figureTrouble(*value)
                                                         ? " (" + *detail::figureTrouble(*value) + ")"
                                                         : ""));
                axisOverride.latency = value;
            } else {
                return makeError(kSpecCode, where + "unknown option '" + std::string(option) +
                                                "' (expected bw=<bytes/s> or lat=<seconds>)");
            }
        }
        mesh.axes.push_back(MeshAxis{axisName, *size, Link{}, {}});
        overrides.push_back(axisOverride);
    }
    if (auto problem = checkAxes(mesh.axes))
        return makeError(kSpecCode, *problem);

    const std::vector<LinkLevel> levels = hardware.linkLevels();
    std::int64_t stride = 1;
    for (std::size_t i = mesh.axes.size(); i-- > 0;) {
        MeshAxis& axis = mesh.axes[i];
        std::vector<AxisLevel> pieces = layOut(stride, axis.size, mesh.devices(), levels);
        axis.link = pieces.back().link;
        if (pieces.size() > 1)
            axis.levels = std::move(pieces);
        if (overrides[i].bandwidth || overrides[i].latency)
            axis.levels.clear();
        if (overrides[i].bandwidth)
            axis.link.bandwidth = *overrides[i].bandwidth;
        if (overrides[i].latency)
            axis.link.latency = *overrides[i].latency;
        stride *= axis.size;
    }
    return mesh;
}

std::string toJson(const Mesh& mesh) {
    nlohmann::ordered_json axes = nlohmann::ordered_json::array();
    for (const auto& axis : mesh.axes)
        axes.push_back(axisJson(axis));
    nlohmann::ordered_json j;
    j["axes"] = std::move(axes);
    return detail::prettyJson(j);
}

Result<Mesh> parseMesh(std::string_view jsonText, std::string_view origin) {
    const std::string where(origin);
    auto fail = [&](const std::string& message) { return makeError(kParseCode, where + ": " + message); };
    nlohmann::json doc;
    if (auto error = detail::parseJsonDocument(jsonText, origin, kParseCode, doc))
        return *error;
    if (!doc.is_object())
        return fail("expected a JSON object with an 'axes' array");
    if (auto unknown = detail::unknownKey(doc, {"axes"}))
        return fail("unknown key '" + *unknown + "'");
    const auto axesIt = doc.find("axes");
    if (axesIt == doc.end() || !axesIt->is_array())
        return fail("'axes' must be an array of {name, size, bandwidth_bytes_per_s, latency_s}");
    Mesh mesh;
    for (std::size_t i = 0; i < axesIt->size(); ++i) {
        const nlohmann::json& entry = (*axesIt)[i];
        const std::string path = "axes[" + std::to_string(i) + "]";
        if (!entry.is_object())
            return fail("'" + path + "' must be an object");
        if (auto unknown =
                detail::unknownKey(entry, {"name", "size", "bandwidth_bytes_per_s", "latency_s", "levels"}))
            return fail("unknown key '" + path + "." + *unknown + "'");
        MeshAxis axis;
        const auto name = detail::stringAt(entry, "name");
        if (!name || !detail::isIdentifier(*name))
            return fail("'" + path +
                        ".name' must be a name of letters, digits and '_' (not starting with a digit)");
        axis.name = *name;
        const auto size = detail::integerAt(entry, "size");
        if (!size)
            return fail("'" + path + ".size' must be an integer");
        axis.size = *size;
        if (entry.contains("levels")) {
            if (entry.contains("bandwidth_bytes_per_s") || entry.contains("latency_s"))
                return fail("'" + path +
                            ".levels' replaces the axis's bandwidth_bytes_per_s and latency_s: give one or "
                            "the other");
            const nlohmann::json& levels = entry["levels"];
            if (!levels.is_array() || levels.size() < 2 ||
                levels.size() > static_cast<std::size_t>(kMaxLinkLevels))
                return fail("'" + path + ".levels' must be an array of 2 to " +
                            std::to_string(kMaxLinkLevels) +
                            " {devices, bandwidth_bytes_per_s, latency_s}, innermost first");
            std::int64_t product = 1;
            for (std::size_t l = 0; l < levels.size(); ++l) {
                const std::string levelPath = path + ".levels[" + std::to_string(l) + "]";
                if (!levels[l].is_object())
                    return fail("'" + levelPath + "' must be an object");
                if (auto unknown =
                        detail::unknownKey(levels[l], {"devices", "bandwidth_bytes_per_s", "latency_s"}))
                    return fail("unknown key '" + levelPath + "." + *unknown + "'");
                const auto devices = detail::integerAt(levels[l], "devices");
                if (!devices || *devices < 2 || *devices > kMaxDevices / product)
                    return fail("'" + levelPath + ".devices' must be an integer of at least 2");
                product *= *devices;
                AxisLevel level{*devices, {}};
                if (auto problem = readLink(levels[l], levelPath, level.link))
                    return fail(*problem);
                axis.levels.push_back(level);
            }
            if (product != axis.size)
                return fail("'" + path + ".levels': the devices multiply to " + std::to_string(product) +
                            ", not the axis's size " + std::to_string(axis.size));
            axis.link = axis.levels.back().link;
        } else if (auto problem = readLink(entry, path, axis.link)) {
            return fail(*problem);
        }
        mesh.axes.push_back(std::move(axis));
    }
    if (auto problem = checkAxes(mesh.axes))
        return fail(*problem);
    return mesh;
}

AxisGroupLink groupLink(const Mesh& mesh, std::uint32_t axisMask) {
    std::vector<const MeshAxis*> members;
    for (std::size_t i = 0; i < mesh.axes.size() && i < 32; ++i)
        if (axisMask & (std::uint32_t{1} << i))
            members.push_back(&mesh.axes[i]);
    AxisGroupLink group;
    if (members.empty())
        return group;
    for (const MeshAxis* axis : members)
        group.devices *= axis->size;
    // Size-1 axes carry no traffic: leave them out of the slowest-link choice unless nothing else is left.
    std::vector<const MeshAxis*> moving;
    for (const MeshAxis* axis : members)
        if (axis->size > 1)
            moving.push_back(axis);
    if (moving.empty())
        moving = members;
    group.link.bandwidth = std::numeric_limits<double>::infinity();
    for (const MeshAxis* axis : moving) {
        group.link.bandwidth = std::min(group.link.bandwidth, axis->link.bandwidth);
        group.link.latency = std::max(group.link.latency, axis->link.latency);
    }
    return group;
}

MeshAxis innerPart(const MeshAxis& axis, std::int64_t devices) {
    MeshAxis out = axis;
    out.size = devices;
    if (axis.levels.empty())
        return out;
    out.levels.clear();
    std::int64_t left = devices;
    for (const AxisLevel& level : axis.levels) {
        const std::int64_t kept = std::gcd(level.devices, left);
        if (kept > 1)
            out.levels.push_back(AxisLevel{kept, level.link});
        left /= kept;
    }
    if (!out.levels.empty())
        out.link = out.levels.back().link;
    if (out.levels.size() < 2)
        out.levels.clear();
    return out;
}

std::vector<AxisLevel> groupLevels(const Mesh& mesh, std::uint32_t axisMask) {
    std::vector<AxisLevel> levels;
    auto add = [&](const AxisLevel& piece) {
        if (piece.devices <= 1)
            return;
        for (AxisLevel& level : levels)
            if (level.link == piece.link) {
                level.devices *= piece.devices;
                return;
            }
        levels.push_back(piece);
    };
    for (std::size_t i = 0; i < mesh.axes.size() && i < 32; ++i) {
        if (!(axisMask & (std::uint32_t{1} << i)))
            continue;
        const MeshAxis& axis = mesh.axes[i];
        if (axis.levels.empty())
            add(AxisLevel{axis.size, axis.link});
        for (const AxisLevel& piece : axis.levels)
            add(piece);
    }
    std::stable_sort(levels.begin(), levels.end(), [](const AxisLevel& a, const AxisLevel& b) {
        return a.link.bandwidth != b.link.bandwidth ? a.link.bandwidth > b.link.bandwidth
                                                    : a.link.latency < b.link.latency;
    });
    return levels;
}

}  // namespace shardscope::mesh
