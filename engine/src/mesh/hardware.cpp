// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/mesh/hardware.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>

#include "mesh/json_text.h"
#include "shardscope/input_file.h"

namespace shardscope::mesh {
namespace detail {
// The files under resources/hardware/ as (file name, text), in the generated builtin_hardware.cpp.
const std::vector<std::pair<std::string_view, std::string_view>>& builtinHardwareFiles();
}  // namespace detail

namespace {

constexpr std::string_view kFormat = "shardscope-hardware";
constexpr std::int64_t kVersion = 1;
const std::string kParseCode = "hardware.parse";
constexpr std::size_t kMaxEfficiencyPoints = 64;

// What an efficiency table's entries are, for messages.
struct TableWords {
    const char* key;   // "matmul"
    const char* size;  // "smallest GEMM dimension"
    const char* of;    // "peak"
};
constexpr TableWords kMatmulWords{"matmul", "smallest GEMM dimension", "peak"};
constexpr TableWords kMemoryWords{"memory", "bytes moved", "HBM bandwidth"};

// The shortest text that reads back as `value` ("64", "0.275", "1e+06").
std::string shortest(double value) {
    std::array<char, 32> buffer{};
    const auto [end, error] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
    return error == std::errc{} ? std::string(buffer.data(), end) : std::to_string(value);
}

// defaultEfficiency(), tabulated from the formulas in hardware.h.
EfficiencyTables makeDefaultEfficiency() {
    EfficiencyTables t;
    auto tile = [](double d) { return d < 128 ? d / 192 : d / (d + 64); };
    for (double d = 1; d <= 2048; d *= 2)
        t.matmul.points.push_back({d, 0.7 * tile(d) / tile(2048)});
    for (double bytes = 65536; bytes <= 1073741824; bytes *= 4)
        t.memory.points.push_back({bytes, 0.7 * bytes / (bytes + 2.1e6)});
    return t;
}

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string trim(std::string_view text) {
    const auto begin = text.find_first_not_of(" \t\n");
    if (begin == std::string_view::npos)
        return {};
    const auto end = text.find_last_not_of(" \t\n");
    return std::string(text.substr(begin, end - begin + 1));
}

std::vector<std::string> splitWhat(std::string_view what) {
    std::vector<std::string> items;
    std::size_t start = 0;
    while (true) {
        const auto comma = what.find(',', start);
        items.push_back(trim(
            what.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
        if (comma == std::string_view::npos)
            break;
        start = comma + 1;
    }
    return items;
}

// Whether `path` names a figure or a group of figures of the format.
bool isFigurePath(const std::string& path) {
    static const char* const kPaths[] = {"peak_flops_per_s",
                                         "hbm_bandwidth_bytes_per_s",
                                         "memory_bytes",
                                         "devices_per_domain",
                                         "fast_link",
                                         "fast_link.bandwidth_bytes_per_s",
                                         "fast_link.latency_s",
                                         "slow_link",
                                         "slow_link.bandwidth_bytes_per_s",
                                         "slow_link.latency_s",
                                         "efficiency",
                                         "efficiency.matmul",
                                         "efficiency.memory"};
    for (const char* p : kPaths)
        if (path == p)
            return true;
    const std::string peakPrefix = "peak_flops_per_s.";
    if (path.starts_with(peakPrefix))
        return ir::parseElementType(path.substr(peakPrefix.size())).has_value();
    // "link_levels", "link_levels[2]", "link_levels[2].latency_s"
    const std::string levelPrefix = "link_levels";
    if (!path.starts_with(levelPrefix))
        return false;
    std::string_view rest = std::string_view(path).substr(levelPrefix.size());
    if (rest.empty())
        return true;
    const auto close = rest.find(']');
    if (rest.front() != '[' || close == std::string_view::npos || close < 2)
        return false;
    int index = -1;
    const auto digits = rest.substr(1, close - 1);
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (error != std::errc{} || end != digits.data() + digits.size() || index < 0 || index >= kMaxLinkLevels)
        return false;
    rest = rest.substr(close + 1);
    return rest.empty() || rest == ".devices" || rest == ".bandwidth_bytes_per_s" || rest == ".latency_s";
}

// The key path of level `index`'s `figure` in the "link_levels" form.
std::string levelPath(std::size_t index, std::string_view figure = {}) {
    return "link_levels[" + std::to_string(index) + "]" + (figure.empty() ? "" : "." + std::string(figure));
}

// Reads one profile; the first error wins and names the origin.
class ProfileReader {
public:
    explicit ProfileReader(std::string_view origin) : origin_(origin) {}

    Result<HardwareProfile> read(std::string_view text) {
        nlohmann::json doc;
        if (auto error = detail::parseJsonDocument(text, origin_, kParseCode, doc))
            return *error;
        if (!doc.is_object())
            return fail("expected a JSON object");
        if (auto unknown =
                detail::unknownKey(doc, {"format", "version", "id", "display_name", "peak_flops_per_s",
                                         "hbm_bandwidth_bytes_per_s", "memory_bytes", "devices_per_domain",
                                         "fast_link", "slow_link", "link_levels", "efficiency", "citations"}))
            return fail("unknown key '" + *unknown + "'");
        if (detail::stringAt(doc, "format") != std::string(kFormat))
            return fail("'format' must be \"" + std::string(kFormat) + "\"");
        const auto version = detail::integerAt(doc, "version");
        if (!version)
            return fail("'version' must be an integer");
        if (*version != kVersion)
            return fail("version " + std::to_string(*version) +
                        " is not supported (this build reads version " + std::to_string(kVersion) + ")");

        HardwareProfile p;
        if (!requireString(doc, "id", p.id) || !requireString(doc, "display_name", p.displayName))
            return error();
        if (!peaks(doc, p.peakFlops))
            return error();
        if (!positive(doc, "hbm_bandwidth_bytes_per_s", "", p.hbmBandwidth))
            return error();
        if (!positive(doc, "memory_bytes", "", p.memoryBytes))
            return error();
        if (doc.contains("link_levels")) {
            for (const char* key : {"devices_per_domain", "fast_link", "slow_link"})
                if (doc.contains(key))
                    return fail(
                        "'link_levels' replaces '" + std::string(key) +
                        "': give either 'link_levels' or devices_per_domain, fast_link and slow_link");
            if (!linkLevels(doc, p))
                return error();
        } else {
            const auto domain = detail::integerAt(doc, "devices_per_domain");
            if (!domain || *domain < 1)
                return fail("'devices_per_domain' must be a positive integer");
            p.devicesPerDomain = *domain;
            if (!link(doc, "fast_link", p.fastLink, p.fastLinkName))
                return error();
            if (!link(doc, "slow_link", p.slowLink, p.slowLinkName))
                return error();
        }
        if (!efficiency(doc, p.efficiency))
            return error();
        if (!citations(doc, p.citations))
            return error();
        return p;
    }

private:
    Diagnostic fail(const std::string& message) {
        if (!error_)
            error_ = makeError(kParseCode, origin_ + ": " + message);
        return *error_;
    }
    Diagnostic error() const { return *error_; }

    // A non-empty string at object[key]; `path` is the key as the message shows it.
    bool requireString(const nlohmann::json& object, const std::string& key, std::string& out,
                       const std::string& path = "") {
        const auto value = detail::stringAt(object, key);
        if (!value || value->empty()) {
            fail("'" + (path.empty() ? key : path) + "' must be a non-empty string");
            return false;
        }
        out = *value;
        return true;
    }

    bool positive(const nlohmann::json& object, const std::string& key, const std::string& path,
                  double& out) {
        const auto value = detail::numberAt(object, key);
        if (!value || !(*value > 0)) {
            fail("'" + (path.empty() ? key : path) + "' must be a positive number");
            return false;
        }
        if (const auto trouble = detail::figureTrouble(*value)) {
            fail("'" + (path.empty() ? key : path) + "' must be a positive number: " + *trouble);
            return false;
        }
        out = *value;
        return true;
    }

    bool peaks(const nlohmann::json& doc, std::map<ir::ElementType, double>& out) {
        const std::string usage =
            "'peak_flops_per_s' must be an object of FLOP/s per element type, e.g. {\"bf16\": 989e12}";
        const auto it = doc.find("peak_flops_per_s");
        if (it == doc.end() || !it->is_object()) {
            fail(usage);
            return false;
        }
        for (auto entry = it->begin(); entry != it->end(); ++entry) {
            if (entry.key().starts_with('_'))
                continue;
            const auto type = ir::parseElementType(entry.key());
            if (!type) {
                fail("'peak_flops_per_s' has an unknown element type '" + entry.key() +
                     "' (MLIR spellings: bf16, f16, f32, f8E4M3FN, f8E5M2, i8, ...)");
                return false;
            }
            double value = 0;
            if (!positive(*it, entry.key(), "peak_flops_per_s." + entry.key(), value))
                return false;
            out[*type] = value;
        }
        if (out.empty()) {
            fail(usage);
            return false;
        }
        return true;
    }

    bool link(const nlohmann::json& doc, const std::string& key, Link& out, std::string& name) {
        const auto it = doc.find(key);
        if (it == doc.end() || !it->is_object()) {
            fail("'" + key + "' must be an object with name, bandwidth_bytes_per_s and latency_s");
            return false;
        }
        if (auto unknown = detail::unknownKey(*it, {"name", "bandwidth_bytes_per_s", "latency_s"})) {
            fail("unknown key '" + key + "." + *unknown + "'");
            return false;
        }
        return linkFigures(*it, key, out, name);
    }

    // The name, bandwidth and latency of the link object `object` at key path `key`.
    bool linkFigures(const nlohmann::json& object, const std::string& key, Link& out, std::string& name) {
        if (!requireString(object, "name", name, key + ".name"))
            return false;
        if (!positive(object, "bandwidth_bytes_per_s", key + ".bandwidth_bytes_per_s", out.bandwidth))
            return false;
        const auto latency = detail::numberAt(object, "latency_s");
        if (!latency || *latency < 0) {
            fail("'" + key + ".latency_s' must be a non-negative number");
            return false;
        }
        if (const auto trouble = detail::figureTrouble(*latency)) {
            fail("'" + key + ".latency_s' must be a non-negative number: " + *trouble);
            return false;
        }
        out.latency = *latency;
        return true;
    }

    // "link_levels": 2..kMaxLinkLevels levels, innermost first, into the profile's fast and slow links and
    // outer levels.
    bool linkLevels(const nlohmann::json& doc, HardwareProfile& p) {
        const nlohmann::json& array = doc["link_levels"];
        if (!array.is_array() || array.size() < 2 ||
            array.size() > static_cast<std::size_t>(kMaxLinkLevels)) {
            fail("'link_levels' must be an array of 2 to " + std::to_string(kMaxLinkLevels) +
                 " levels {name, devices, bandwidth_bytes_per_s, latency_s}, innermost first");
            return false;
        }
        std::vector<LinkLevel> levels;
        for (std::size_t i = 0; i < array.size(); ++i) {
            const nlohmann::json& entry = array[i];
            const std::string path = levelPath(i);
            const bool last = i + 1 == array.size();
            if (!entry.is_object()) {
                fail("'" + path + "' must be an object");
                return false;
            }
            if (auto unknown =
                    detail::unknownKey(entry, {"name", "devices", "bandwidth_bytes_per_s", "latency_s"})) {
                fail("unknown key '" + path + "." + *unknown + "'");
                return false;
            }
            LinkLevel level;
            if (last && entry.contains("devices")) {
                fail("'" + levelPath(i, "devices") +
                     "': the last level joins every device; leave 'devices' out of it");
                return false;
            }
            if (!last) {
                const auto devices = detail::integerAt(entry, "devices");
                const std::int64_t inner = levels.empty() ? 1 : levels.back().devices;
                if (!devices || *devices < 1 || *devices > (std::int64_t{1} << 40)) {
                    fail("'" + levelPath(i, "devices") + "' must be a positive integer of at most 2^40");
                    return false;
                }
                if (!levels.empty() && (*devices <= inner || *devices % inner != 0)) {
                    fail("'" + levelPath(i, "devices") + "' must be a multiple of the inner level's " +
                         std::to_string(inner) + " devices, and larger");
                    return false;
                }
                level.devices = *devices;
            }
            if (!linkFigures(entry, path, level.link, level.name))
                return false;
            levels.push_back(std::move(level));
        }
        p.devicesPerDomain = levels[0].devices;
        p.fastLink = levels[0].link;
        p.fastLinkName = levels[0].name;
        p.slowLinkDevices = levels[1].devices;
        p.slowLink = levels[1].link;
        p.slowLinkName = levels[1].name;
        p.outerLevels.assign(levels.begin() + 2, levels.end());
        return true;
    }

    // The optional "efficiency" object: both tables, each checked entry by entry.
    bool efficiency(const nlohmann::json& doc, std::optional<EfficiencyTables>& out) {
        const auto it = doc.find("efficiency");
        if (it == doc.end())
            return true;
        if (!it->is_object()) {
            fail("'efficiency' must be an object with a \"matmul\" and a \"memory\" table");
            return false;
        }
        if (auto unknown = detail::unknownKey(*it, {"matmul", "memory"})) {
            fail("unknown key 'efficiency." + *unknown + "'");
            return false;
        }
        EfficiencyTables tables;
        if (!curve(*it, kMatmulWords, tables.matmul) || !curve(*it, kMemoryWords, tables.memory))
            return false;
        out = std::move(tables);
        return true;
    }

    bool curve(const nlohmann::json& object, const TableWords& words, EfficiencyCurve& out) {
        const std::string path = std::string("efficiency.") + words.key;
        const auto it = object.find(words.key);
        if (it == object.end() || !it->is_array() || it->empty() || it->size() > kMaxEfficiencyPoints) {
            fail("'" + path + "' must be an array of 1 to " + std::to_string(kMaxEfficiencyPoints) + " [" +
                 words.size + ", fraction of " + words.of + "] pairs");
            return false;
        }
        for (std::size_t i = 0; i < it->size(); ++i) {
            const nlohmann::json& entry = (*it)[i];
            const std::string where = "'" + path + "[" + std::to_string(i) + "]'";
            if (!entry.is_array() || entry.size() != 2) {
                fail(where + " must be a pair [" + words.size + ", fraction of " + words.of + "]");
                return false;
            }
            auto finite = [](const nlohmann::json& v) -> std::optional<double> {
                if (!v.is_number())
                    return std::nullopt;
                const double d = v.get<double>();
                return std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
            };
            const auto x = finite(entry[0]);
            if (!x || !(*x > 0) || detail::figureTrouble(*x)) {
                fail(where + ": the " + words.size + " must be a positive number" +
                     (x && *x > 0 ? ": " + *detail::figureTrouble(*x) : std::string()));
                return false;
            }
            const auto fraction = finite(entry[1]);
            if (!fraction || !(*fraction > 0) || *fraction > 1 || detail::figureTrouble(*fraction)) {
                fail(where + ": the efficiency must be a number in (0, 1]" +
                     (fraction && *fraction > 0 && *fraction <= 1 ? ": " + *detail::figureTrouble(*fraction)
                                                                  : std::string()));
                return false;
            }
            if (!out.points.empty() && !(*x > out.points.back().x)) {
                fail(where + ": the sizes must increase strictly (" + shortest(*x) + " follows " +
                     shortest(out.points.back().x) + ")");
                return false;
            }
            out.points.push_back({*x, *fraction});
        }
        return true;
    }

    bool citations(const nlohmann::json& doc, std::vector<Citation>& out) {
        const auto it = doc.find("citations");
        if (it == doc.end())
            return true;
        if (!it->is_array()) {
            fail("'citations' must be an array of {what, source, note}");
            return false;
        }
        for (std::size_t i = 0; i < it->size(); ++i) {
            const nlohmann::json& entry = (*it)[i];
            const std::string path = "citations[" + std::to_string(i) + "]";
            if (!entry.is_object()) {
                fail("'" + path + "' must be an object with what, source and an optional note");
                return false;
            }
            if (auto unknown = detail::unknownKey(entry, {"what", "source", "note"})) {
                fail("unknown key '" + path + "." + *unknown + "'");
                return false;
            }
            Citation c;
            if (!requireString(entry, "what", c.what, path + ".what") ||
                !requireString(entry, "source", c.source, path + ".source"))
                return false;
            if (entry.contains("note")) {
                const auto note = detail::stringAt(entry, "note");
                if (!note) {
                    fail("'" + path + ".note' must be a string");
                    return false;
                }
                c.note = *note;
            }
            for (const std::string& item : splitWhat(c.what)) {
                if (!isFigurePath(item)) {
                    fail("'" + path + ".what' names '" + item +
                         "', which is not a figure of the format (e.g. memory_bytes, peak_flops_per_s.bf16, "
                         "fast_link.latency_s)");
                    return false;
                }
            }
            out.push_back(std::move(c));
        }
        return true;
    }

    std::string origin_;
    std::optional<Diagnostic> error_;
};

nlohmann::ordered_json linkJson(const std::string& name, const Link& link) {
    nlohmann::ordered_json j;
    j["name"] = name;
    j["bandwidth_bytes_per_s"] = link.bandwidth;
    j["latency_s"] = link.latency;
    return j;
}

nlohmann::ordered_json curveJson(const EfficiencyCurve& curve) {
    nlohmann::ordered_json points = nlohmann::ordered_json::array();
    for (const auto& p : curve.points)
        points.push_back(nlohmann::ordered_json::array({p.x, p.efficiency}));
    return points;
}

std::string builtinIds() {
    std::string out;
    for (const auto& p : builtinHardware())
        out += (out.empty() ? "" : ", ") + p.id;
    return out;
}

}  // namespace

double HardwareProfile::peak(ir::ElementType type) const {
    using E = ir::ElementType;
    auto find = [&](E t) -> std::optional<double> {
        const auto it = peakFlops.find(t);
        return it == peakFlops.end() ? std::nullopt : std::optional<double>(it->second);
    };
    auto firstOf = [&](std::initializer_list<E> types) -> std::optional<double> {
        for (E t : types)
            if (auto v = find(t))
                return v;
        return std::nullopt;
    };
    if (auto exact = find(type))
        return *exact;
    std::optional<double> fallback;
    switch (type) {
        case E::F8E4M3FN:
        case E::F8E5M2:
        case E::F8E4M3FNUZ:
        case E::F8E5M2FNUZ:
        case E::F8E4M3B11FNUZ:
            fallback = firstOf(
                {E::F8E4M3FN, E::F8E5M2, E::F8E4M3FNUZ, E::F8E5M2FNUZ, E::F8E4M3B11FNUZ, E::BF16, E::F16});
            break;
        case E::F16:
            fallback = find(E::BF16);
            break;
        case E::BF16:
            fallback = find(E::F16);
            break;
        case E::I2:
        case E::I4:
        case E::U2:
        case E::U4:
        case E::U8:
            fallback = find(E::I8);
            break;
        default:
            break;
    }
    if (fallback)
        return *fallback;
    if (auto f32 = find(E::F32))
        return *f32;
    if (peakFlops.empty())
        return 0;
    double smallest = peakFlops.begin()->second;
    for (const auto& [t, v] : peakFlops)
        smallest = std::min(smallest, v);
    return smallest;
}

double EfficiencyCurve::at(double x) const {
    if (points.empty())
        return 1;
    if (!(x > points.front().x))
        return points.front().efficiency;
    for (std::size_t i = 1; i < points.size(); ++i) {
        const EfficiencyPoint& hi = points[i];
        if (x < hi.x) {
            const EfficiencyPoint& lo = points[i - 1];
            const double t = std::log2(x / lo.x) / std::log2(hi.x / lo.x);
            return lo.efficiency + t * (hi.efficiency - lo.efficiency);
        }
    }
    return points.back().efficiency;
}

const EfficiencyTables& defaultEfficiency() {
    static const EfficiencyTables tables = makeDefaultEfficiency();
    return tables;
}

const EfficiencyTables& HardwareProfile::efficiencyTables() const {
    return efficiency ? *efficiency : defaultEfficiency();
}

std::vector<LinkLevel> HardwareProfile::linkLevels() const {
    std::vector<LinkLevel> levels{
        LinkLevel{fastLinkName, devicesPerDomain, fastLink},
        LinkLevel{slowLinkName, outerLevels.empty() ? 0 : slowLinkDevices, slowLink}};
    levels.insert(levels.end(), outerLevels.begin(), outerLevels.end());
    return levels;
}

double HardwareProfile::matmulEfficiency(double m, double n, double k) const {
    return efficiencyTables().matmul.at(std::min({m, n, k}));
}

double HardwareProfile::memoryEfficiency(double bytes) const {
    return efficiencyTables().memory.at(bytes);
}

const std::vector<HardwareProfile>& builtinHardware() {
    static const std::vector<HardwareProfile> profiles = [] {
        std::vector<HardwareProfile> out;
        for (const auto& [file, text] : detail::builtinHardwareFiles()) {
            // A built-in that does not parse is left out; tst_mesh parses every file and names the error.
            auto profile = parseHardware(text, file);
            if (profile)
                out.push_back(std::move(profile).value());
        }
        std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
        return out;
    }();
    return profiles;
}

Result<HardwareProfile> parseHardware(std::string_view jsonText, std::string_view origin) {
    return ProfileReader(origin).read(jsonText);
}

Result<HardwareProfile> loadHardware(std::string_view idOrPath) {
    const std::string wanted = lower(trim(idOrPath));
    for (const auto& p : builtinHardware())
        if (lower(p.id) == wanted)
            return p;

    const std::string path(idOrPath);
    std::error_code ec;
    const bool exists = !path.empty() && std::filesystem::exists(path, ec);
    const bool looksLikePath = path.find('/') != std::string::npos || lower(path).ends_with(".json");
    if (!exists && !looksLikePath)
        return makeError("hardware.unknown", "unknown hardware '" + path + "' (built-in: " + builtinIds() +
                                                 "; or give the path of a JSON profile)");
    auto text = readInputFile(path, "hardware profile", kMaxJsonFileBytes);
    if (!text)
        return Result<HardwareProfile>::failure(text.diagnostics());
    return parseHardware(*text, path);
}

std::string toJson(const HardwareProfile& p) {
    nlohmann::ordered_json j;
    j["format"] = kFormat;
    j["version"] = kVersion;
    j["id"] = p.id;
    j["display_name"] = p.displayName;
    nlohmann::ordered_json peaks = nlohmann::ordered_json::object();
    for (const auto& [type, flops] : p.peakFlops)
        peaks[std::string(ir::toString(type))] = flops;
    j["peak_flops_per_s"] = std::move(peaks);
    j["hbm_bandwidth_bytes_per_s"] = p.hbmBandwidth;
    j["memory_bytes"] = p.memoryBytes;
    if (p.outerLevels.empty()) {
        j["devices_per_domain"] = p.devicesPerDomain;
        j["fast_link"] = linkJson(p.fastLinkName, p.fastLink);
        j["slow_link"] = linkJson(p.slowLinkName, p.slowLink);
    } else {
        nlohmann::ordered_json levels = nlohmann::ordered_json::array();
        for (const LinkLevel& level : p.linkLevels()) {
            nlohmann::ordered_json entry;
            entry["name"] = level.name;
            if (level.devices > 0)
                entry["devices"] = level.devices;
            entry["bandwidth_bytes_per_s"] = level.link.bandwidth;
            entry["latency_s"] = level.link.latency;
            levels.push_back(std::move(entry));
        }
        j["link_levels"] = std::move(levels);
    }
    if (p.efficiency) {
        nlohmann::ordered_json tables;
        tables["matmul"] = curveJson(p.efficiency->matmul);
        tables["memory"] = curveJson(p.efficiency->memory);
        j["efficiency"] = std::move(tables);
    }
    nlohmann::ordered_json citations = nlohmann::ordered_json::array();
    for (const auto& c : p.citations) {
        nlohmann::ordered_json entry;
        entry["what"] = c.what;
        entry["source"] = c.source;
        if (!c.note.empty())
            entry["note"] = c.note;
        citations.push_back(std::move(entry));
    }
    j["citations"] = std::move(citations);
    return detail::prettyJson(j);
}

std::vector<std::string> uncitedFigures(const HardwareProfile& p) {
    std::vector<std::string> figures;
    for (const auto& [type, flops] : p.peakFlops)
        figures.push_back("peak_flops_per_s." + std::string(ir::toString(type)));
    for (const char* f : {"hbm_bandwidth_bytes_per_s", "memory_bytes"})
        figures.emplace_back(f);
    if (p.outerLevels.empty()) {
        for (const char* f : {"devices_per_domain", "fast_link.bandwidth_bytes_per_s", "fast_link.latency_s",
                              "slow_link.bandwidth_bytes_per_s", "slow_link.latency_s"})
            figures.emplace_back(f);
    } else {
        const std::vector<LinkLevel> levels = p.linkLevels();
        for (std::size_t i = 0; i < levels.size(); ++i) {
            if (levels[i].devices > 0)
                figures.push_back(levelPath(i, "devices"));
            figures.push_back(levelPath(i, "bandwidth_bytes_per_s"));
            figures.push_back(levelPath(i, "latency_s"));
        }
    }
    if (p.efficiency) {
        figures.emplace_back("efficiency.matmul");
        figures.emplace_back("efficiency.memory");
    }
    std::vector<std::string> cited;
    for (const auto& c : p.citations)
        for (auto& item : splitWhat(c.what))
            cited.push_back(std::move(item));
    std::vector<std::string> uncited;
    for (const auto& figure : figures) {
        const bool covered = std::any_of(cited.begin(), cited.end(), [&](const std::string& item) {
            return figure == item || (figure.size() > item.size() && figure.starts_with(item) &&
                                      (figure[item.size()] == '.' || figure[item.size()] == '['));
        });
        if (!covered)
            uncited.push_back(figure);
    }
    return uncited;
}

}  // namespace shardscope::mesh
