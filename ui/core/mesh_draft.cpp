// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/mesh_draft.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include <QStringList>

#include "core/text.h"
#include "shardscope/analysis/resize.h"
#include "shardscope/input_file.h"
#include "shardscope/mesh/mesh.h"

namespace shardscope::ui {

namespace {

// The editor shows bandwidths in GB/s and latencies in µs; the engine's mesh syntax wants bytes/s and
// seconds.
constexpr double kBytesPerGB = 1e9;
constexpr double kSecondsPerMicrosecond = 1e-6;

QString number(double value) {
    return QString::number(value, 'g', 15);
}

// The first error of a failed engine call, without the code: what the user can act on.
template <typename T>
QString firstError(const Result<T>& result) {
    for (const Diagnostic& d : result.diagnostics())
        if (d.severity == Severity::Error)
            return toQString(d.message);
    return QObject::tr("unknown error");
}

QString linkText(double bandwidth, double latency) {
    return QObject::tr("%1 GB/s, %2 µs")
        .arg(number(bandwidth / kBytesPerGB), number(latency / kSecondsPerMicrosecond));
}

// The levels beyond the slow link, one line each, for a profile with more than two.
QString outerLevelsSummary(const mesh::HardwareProfile& h) {
    QString out;
    if (!h.outerLevels.empty())
        out += QObject::tr("<br>(%1 devices on the slow link)").arg(h.slowLinkDevices);
    for (const mesh::LinkLevel& level : h.outerLevels)
        out += QObject::tr("<br>beyond: %1 (%2)")
                   .arg(toQString(level.name).toHtmlEscaped(),
                        linkText(level.link.bandwidth, level.link.latency));
    return out;
}

QString hardwareSummary(const mesh::HardwareProfile& h) {
    const QString peak = QString::number(h.peak(ir::ElementType::BF16) / 1e12, 'g', 4);
    return QObject::tr(
               "<b>%1</b><br>"
               "%2 TFLOP/s dense bf16<br>"
               "%3 GB HBM at %4 TB/s<br>"
               "%5 per domain on %6 (%7)<br>"
               "across domains: %8 (%9)")
               .arg(toQString(h.displayName).toHtmlEscaped(), peak,
                    QString::number(h.memoryBytes / 1e9, 'g', 4),
                    QString::number(h.hbmBandwidth / 1e12, 'g', 3), QString::number(h.devicesPerDomain),
                    toQString(h.fastLinkName).toHtmlEscaped(),
                    linkText(h.fastLink.bandwidth, h.fastLink.latency),
                    toQString(h.slowLinkName).toHtmlEscaped(),
                    linkText(h.slowLink.bandwidth, h.slowLink.latency)) +
           outerLevelsSummary(h);
}

// A level's word for the narrow link column: "fast" for the innermost, "slow" for the outermost, "level 2"
// between them.
QString levelKind(std::size_t level, std::size_t count) {
    if (level == 0)
        return QObject::tr("fast");
    if (level + 1 >= count)
        return QObject::tr("slow");
    return QObject::tr("level %1").arg(level + 1);
}

}  // namespace

std::vector<HardwareChoice> MeshDraft::builtinHardware() {
    std::vector<HardwareChoice> out;
    for (const mesh::HardwareProfile& profile : mesh::builtinHardware())
        out.push_back({toQString(profile.id), toQString(profile.displayName), {}});
    return out;
}

int MeshDraft::addHardware(const QString& key) {
    HardwareChoice choice{key, {}, {}};
    std::optional<mesh::HardwareProfile> profile;
    // A workspace session's spec carries its profile inline, as JSON, so the workspace opens anywhere.
    auto loaded = key.startsWith(QLatin1Char('{'))
                      ? mesh::parseHardware(key.toStdString(), "the workspace's hardware profile")
                      : mesh::loadHardware(key.toStdString());
    if (loaded) {
        profile = std::move(loaded.value());
        choice.displayName = toQString(profile->displayName);
    } else {
        choice.error = firstError(loaded);
    }
    choices_.push_back(std::move(choice));
    profiles_.push_back(std::move(profile));
    return static_cast<int>(choices_.size()) - 1;
}

const mesh::HardwareProfile* MeshDraft::loadedProfile(int hardware) const {
    if (hardware < 0 || hardware >= static_cast<int>(profiles_.size()))
        return nullptr;
    const auto& profile = profiles_[static_cast<std::size_t>(hardware)];
    return profile ? &*profile : nullptr;
}

std::vector<MeshAxisDraft> MeshDraft::readMesh(const QString& meshSpec, int hardware) {
    std::vector<MeshAxisDraft> axes;
    const QString trimmed = meshSpec.trimmed();
    // A mesh written out as JSON (a workspace session's, inline) or in a .json file, the way loadProblem
    // reads it.
    std::optional<Result<mesh::Mesh>> parsed;
    if (trimmed.startsWith(QLatin1Char('{'))) {
        parsed = mesh::parseMesh(trimmed.toStdString(), "the workspace's mesh");
    } else if (trimmed.endsWith(QStringLiteral(".json"))) {
        // Bounded, and a FIFO or a device is refused instead of blocking the window.
        auto text = readInputFile(trimmed.toStdString(), "mesh file", kMaxJsonFileBytes);
        parsed = text ? mesh::parseMesh(*text, trimmed.toStdString())
                      : Result<mesh::Mesh>::failure(text.diagnostics());
    }
    meshSourceError_.clear();
    if (trimmed.endsWith(QStringLiteral(".json")) && !parsed)
        meshSourceError_ = tr("Mesh: cannot read '%1'").arg(trimmed);
    else if (parsed && !parsed->ok())
        meshSourceError_ = tr("Mesh: %1").arg(firstError(*parsed));
    if (parsed) {
        // The table cannot show what did not parse; it starts empty and the error says why.
        if (parsed->ok()) {
            // Links the hardware would give the axes anyway stay empty: only real overrides show as edits.
            const mesh::HardwareProfile* loaded = loadedProfile(hardware);
            const auto laidOut = loaded ? plainMeshLayout(**parsed, *loaded)
                                        : Result<mesh::Mesh>(makeError("mesh", "no hardware"));
            for (std::size_t i = 0; i < (*parsed)->axes.size(); ++i) {
                const mesh::MeshAxis& axis = (*parsed)->axes[i];
                const mesh::Link* usual = laidOut ? &laidOut->axes[i].link : nullptr;
                const bool sameBandwidth = usual && usual->bandwidth == axis.link.bandwidth;
                const bool sameLatency = usual && usual->latency == axis.link.latency;
                axes.push_back(
                    {toQString(axis.name), QString::number(axis.size),
                     sameBandwidth ? QString() : number(axis.link.bandwidth / kBytesPerGB),
                     sameLatency ? QString() : number(axis.link.latency / kSecondsPerMicrosecond)});
            }
        }
        return axes;
    }
    for (const QString& item : trimmed.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QStringList parts = item.split(QLatin1Char(':'));
        const QString head = parts.front();
        const qsizetype equals = head.indexOf(QLatin1Char('='));
        QString bandwidth, latency;
        QString rest;  // options the table has no column for stay in the name cell, for the engine to report
        for (qsizetype i = 1; i < parts.size(); ++i) {
            const QString option = parts[i].trimmed();
            bool ok = false;
            const double value = option.section(QLatin1Char('='), 1).trimmed().toDouble(&ok);
            if (ok && option.startsWith(QStringLiteral("bw=")))
                bandwidth = number(value / kBytesPerGB);
            else if (ok && option.startsWith(QStringLiteral("lat=")))
                latency = number(value / kSecondsPerMicrosecond);
            else
                rest += QLatin1Char(':') + option;
        }
        if (equals < 0)
            axes.push_back({item.trimmed(), QString(), {}, {}});
        else
            axes.push_back(
                {head.left(equals).trimmed() + rest, head.mid(equals + 1).trimmed(), bandwidth, latency});
    }
    return axes;
}

QString MeshDraft::meshText(const std::vector<MeshAxisDraft>& axes) {
    QStringList out;
    for (const MeshAxisDraft& a : axes) {
        QString axis = a.name + QLatin1Char('=') + a.size;
        bool ok = false;
        const double gbps = a.bandwidth.toDouble(&ok);
        if (!a.bandwidth.isEmpty())
            axis += QStringLiteral(":bw=") + (ok ? number(gbps * kBytesPerGB) : a.bandwidth);
        const double microseconds = a.latency.toDouble(&ok);
        if (!a.latency.isEmpty())
            axis +=
                QStringLiteral(":lat=") + (ok ? number(microseconds * kSecondsPerMicrosecond) : a.latency);
        out << axis;
    }
    return out.join(QLatin1Char(','));
}

QString MeshDraft::sizesText(const ProblemSpec& spec) {
    return toQString(analysis::globalSizesText(spec.sizes));
}

void MeshDraft::applySizes(const QString& sizes, ProblemSpec& spec) {
    if (auto parsed = analysis::parseGlobalSizes(sizes.toStdString()))
        spec.sizes = std::move(parsed).value();
}

MeshDraftCheck MeshDraft::check(int hardware, const std::vector<MeshAxisDraft>& axes,
                                const QString& sizes) const {
    MeshDraftCheck out;
    QString& error = out.error;
    const mesh::HardwareProfile* loaded = loadedProfile(hardware);
    if (hardware < 0 || hardware >= static_cast<int>(choices_.size()))
        error = tr("Choose a hardware profile");
    else if (!loaded)
        error = tr("Hardware: %1").arg(choices_[static_cast<std::size_t>(hardware)].error);
    else
        out.hardwareSummary = hardwareSummary(*loaded);

    for (const MeshAxisDraft& axis : axes) {
        for (const auto& [text, what] :
             {std::pair{axis.bandwidth, tr("bandwidth")}, std::pair{axis.latency, tr("latency")}}) {
            bool ok = true;
            if (!text.isEmpty())
                text.toDouble(&ok);
            if (!ok && error.isEmpty())
                error = tr("Mesh axis '%1': the %2 must be a number, got '%3'").arg(axis.name, what, text);
        }
    }

    if (error.isEmpty())
        error = meshSourceError_;
    if (auto parsed = analysis::parseGlobalSizes(sizes.toStdString()); !parsed && error.isEmpty())
        error = tr("Global sizes: %1").arg(firstError(parsed));
    const mesh::HardwareProfile noHardware;
    const mesh::HardwareProfile& profile = loaded ? *loaded : noHardware;
    const auto mesh = mesh::makeMesh(meshText(axes).toStdString(), profile);
    if (!mesh) {
        if (error.isEmpty())
            error = tr("Mesh: %1").arg(firstError(mesh));
        out.deviceCount = tr("? devices");
        return out;
    }
    const std::int64_t devices = mesh->devices();
    const std::int64_t domain = std::max<std::int64_t>(1, profile.devicesPerDomain);
    out.deviceCount = devices > domain && devices % domain == 0
                          ? tr("%1 devices (%2 × %3)").arg(devices).arg(devices / domain).arg(domain)
                          : tr("%1 devices").arg(devices);
    // The links without the user's overrides tell which of the hardware's links an axis lies on.
    const auto laidOut = plainMeshLayout(*mesh, profile);
    const std::vector<mesh::LinkLevel> levels =
        loaded ? profile.linkLevels() : std::vector<mesh::LinkLevel>{};
    for (std::size_t i = 0; i < axes.size() && i < mesh->axes.size(); ++i) {
        const mesh::MeshAxis& axis = mesh->axes[i];
        // The table is narrow in a dock: "fast"/"slow" in the cell, the link's full name in the tooltip; an
        // axis over several levels shows each with its devices ("fast (8) × slow (2)").
        QString kind, name;
        if (laidOut && loaded) {
            const mesh::MeshAxis& plain = laidOut->axes[i];
            QStringList kinds, names;
            const std::vector<mesh::AxisLevel> pieces =
                plain.levels.empty() ? std::vector<mesh::AxisLevel>{{plain.size, plain.link}} : plain.levels;
            for (const mesh::AxisLevel& piece : pieces) {
                const auto level = linkLevelOf(levels, piece.link);
                const QString count =
                    pieces.size() > 1 ? QStringLiteral(" (%1)").arg(piece.devices) : QString();
                kinds << levelKind(level, levels.size()) + count;
                names << (level < levels.size() ? toQString(levels[level].name) : QString()) + count;
            }
            kind = kinds.join(QStringLiteral(" × "));
            name = names.join(QStringLiteral(" × "));
            if (!(axis == plain)) {
                kind = tr("%1, edited").arg(kind);
                name = tr("%1, with the figures edited").arg(name);
            }
        }
        QStringList texts;
        for (const mesh::AxisLevel& piece : axis.levels)
            texts << linkText(piece.link.bandwidth, piece.link.latency);
        const QString text = texts.isEmpty() ? linkText(axis.link.bandwidth, axis.link.latency)
                                             : texts.join(QStringLiteral(" × "));
        out.links.push_back({kind.isEmpty() ? text : kind + QStringLiteral(": ") + text, name});
    }
    out.picture = meshPicture(*mesh, loaded);
    return out;
}

}  // namespace shardscope::ui
