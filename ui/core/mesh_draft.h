// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The engine side of the problem editor: the hardware profiles it offers, and the mesh and global sizes it
// edits, checked by the engine and told back in Qt's terms.
#pragma once

#include <optional>
#include <vector>

#include <QCoreApplication>
#include <QString>

#include "core/mesh_picture.h"
#include "shardscope/mesh/hardware.h"
#include "shardscope/session/problem.h"

namespace shardscope::ui {

// A mesh axis as the editor's table holds it, as typed: bandwidth in GB/s and latency in µs, empty for the
// link the hardware gives the axis. Options the table has no column for stay in the name (":foo=1"), for the
// engine to report.
struct MeshAxisDraft {
    QString name, size, bandwidth, latency;
    friend bool operator==(const MeshAxisDraft&, const MeshAxisDraft&) = default;
};

// The link an axis of a valid mesh gets, for the table's narrow link column.
struct MeshAxisLink {
    QString text;     // "fast: 100 GB/s, 5 µs"; only the figures without a loaded hardware profile
    QString toolTip;  // the hardware's name for the link ("NVLink", "NVLink, with the figures edited"), or ""
};

// What the engine says of a draft.
struct MeshDraftCheck {
    QString error;            // the first problem, one line; empty when the draft can be applied
    QString hardwareSummary;  // rich text; empty without a loaded profile
    QString deviceCount;  // "8 devices", "16 devices (2 × 8)", or "? devices" when the mesh does not build
    std::vector<MeshAxisLink> links;  // per axis when the mesh builds, else empty
    MeshPicture picture;              // the mesh as a picture; no devices when it does not build
};

// A hardware profile to choose from: a built-in id, a profile file, or a profile written out as JSON (a
// workspace session's spec carries its profile inline).
struct HardwareChoice {
    QString key;          // as ProblemSpec::hardware names it
    QString displayName;  // the profile's name; empty when it does not load
    QString error;        // why it does not load; empty when it does

    bool loaded() const { return error.isEmpty(); }
};

// The hardware and mesh of a ProblemSpec as the problem editor edits them. The widget keeps what the user
// typed (the table's axes, the sizes line); a MeshDraft loads the hardware profiles, reads a spec's mesh into
// axes, writes axes in makeMesh's syntax ("data=8,model=4:bw=4e+11:lat=2e-06") and checks the whole with the
// engine.
class MeshDraft {
    Q_DECLARE_TR_FUNCTIONS(MeshDraft)

public:
    // The built-in profiles (ids and names, in the engine's order), to offer with addHardware().
    static std::vector<HardwareChoice> builtinHardware();

    // The profiles offered, in the order they were added.
    const std::vector<HardwareChoice>& hardwareChoices() const { return choices_; }
    // Loads `key` (a built-in id or a file, read now; or a profile as JSON) and offers it. Returns its index.
    int addHardware(const QString& key);

    // The axes a spec's mesh describes, for the table: makeMesh's syntax as written, link options in the
    // table's units. A mesh written out as JSON (inline, or in a .json file) shows its axes, with only the
    // links that differ from what hardware `hardware` (an index into hardwareChoices(); -1: none) gives them.
    // One that cannot be read gives no axes, and meshSourceError() says why until clearMeshSourceError() (the
    // user edits the axes).
    std::vector<MeshAxisDraft> readMesh(const QString& meshSpec, int hardware);
    const QString& meshSourceError() const { return meshSourceError_; }
    void clearMeshSourceError() { meshSourceError_.clear(); }

    // `axes` in makeMesh's syntax, links in the engine's units (bytes/s, seconds).
    static QString meshText(const std::vector<MeshAxisDraft>& axes);
    // The spec's global sizes as a line, "batch=256,seq=4096" ("" for the model's own).
    static QString sizesText(const ProblemSpec& spec);
    // Sets `spec`'s global sizes from a line like sizesText()'s; one that does not parse keeps the spec's
    // (check() says why).
    static void applySizes(const QString& sizes, ProblemSpec& spec);

    // Checks hardware `hardware` (an index into hardwareChoices(); -1: none), `axes` and the global sizes
    // line `sizes` with the engine: the first error in the order hardware, link figures, the mesh's source,
    // sizes, mesh.
    MeshDraftCheck check(int hardware, const std::vector<MeshAxisDraft>& axes, const QString& sizes) const;

private:
    const mesh::HardwareProfile* loadedProfile(int hardware) const;

    std::vector<HardwareChoice> choices_;
    std::vector<std::optional<mesh::HardwareProfile>> profiles_;  // parallel to choices_
    QString meshSourceError_;
};

}  // namespace shardscope::ui
