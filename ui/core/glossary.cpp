// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/glossary.h"

#include <QCoreApplication>

#include "core/text.h"
#include "shardscope/plan/experts.h"

namespace shardscope::ui {
namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("Glossary", text);
}

using Kind = GlossaryEntry::Kind;

QList<GlossaryEntry> concepts() {
    return {
        {QStringLiteral("name"),
         tr("Name"),
         Kind::Concept,
         tr("A dimension of the model that is sharded as one: every tensor dimension that must be split the "
            "same way, because the ops pass it from one tensor to the next. For example <i>d_ff</i> is the "
            "hidden width of an MLP: the first weight's columns, the activation between the two matmuls and "
            "the second weight's rows. Sharding a name on a mesh axis splits all of them over that axis's "
            "devices. Names are labelled from the model (<i>batch</i>, <i>seq</i>, <i>d_model</i>, "
            "<i>layers.3.mlp.d_ff</i>) or, when the model says nothing, numbered (<i>N17</i>)."),
         {QStringLiteral("group"), QStringLiteral("decision"), QStringLiteral("atoms")}},
        {QStringLiteral("group"),
         tr("Group"),
         Kind::Concept,
         tr("Names that play the same role in repeated layers, decided together: <i>layers.*.mlp.d_ff</i> is "
            "the MLP width of every layer. Sharding a group shards every layer alike, so a 96-layer model "
            "has "
            "no more decisions to make than a 2-layer one."),
         {QStringLiteral("name"), QStringLiteral("decision")}},
        {QStringLiteral("atoms"),
         tr("Atoms"),
         Kind::Concept,
         tr("The pieces a tensor dimension is cut into so that every op sees whole pieces. A reshape from "
            "[6] to [2, 3] cuts the dimension of 6 into pieces of 2 and 3. A name is made of atoms; a "
            "decision shards each atom of its name when it can. An atom that cannot take the axis (the axis "
            "is "
            "already used on that tensor, its size does not divide, or the piece before it in the same "
            "dimension is not fully split) stays whole there: the Plan panel's <i>Reached</i> column counts "
            "the places that took the axis."),
         {QStringLiteral("name"), QStringLiteral("competition-site")}},
        {QStringLiteral("decision"),
         tr("Decision"),
         Kind::Concept,
         tr("One line of a plan: shard a name or a group on a mesh axis (\"layers.*.mlp.d_ff on model\"). "
            "Decisions apply in order; an earlier one wins a mesh axis over a later one on the same tensor."),
         {QStringLiteral("pin"), QStringLiteral("plan"), QStringLiteral("name")}},
        {QStringLiteral("pin"),
         tr("Pin, pinned decision"),
         Kind::Concept,
         tr("A decision you fixed. Pins come first in the plan, the search keeps them, and starting from an "
            "expert plan or editing a plan from the Plans panel keeps them too. A <b>forbidden</b> decision "
            "is the opposite: the search never adds it."),
         {QStringLiteral("decision"), QStringLiteral("edited-plan")}},
        {QStringLiteral("plan"),
         tr("Plan"),
         Kind::Concept,
         tr("How to run the model on the mesh: its decisions (which names are sharded on which axes), how "
            "conflicts are resolved, which layers are recomputed (remat), and how the step is split into "
            "microbatches and pipeline stages."),
         {QStringLiteral("decision"), QStringLiteral("edited-plan"), QStringLiteral("remat"),
          QStringLiteral("pipeline")}},
        {QStringLiteral("edited-plan"),
         tr("Edited plan"),
         Kind::Concept,
         tr("The plan you are working on: the Plan panel lists its decisions, and every edit (a pin, a "
            "conflict choice, Start from…) changes it and can be undone. Saving and exporting write it."),
         {QStringLiteral("preview"), QStringLiteral("pin")}},
        {QStringLiteral("preview"),
         tr("Preview"),
         Kind::Concept,
         tr("Looking at another plan without editing it: select a plan in the Plans panel or double-click a "
            "node of the search tree, and the graph, Cost, Breakdown, Timeline and Pipeline show that plan, "
            "marked <i>(preview)</i>. The edited plan and its pins stay as they were. <b>Edit this plan</b> "
            "makes the previewed plan the edited plan (your pinned and forbidden decisions are kept and come "
            "first); <b>Back to the edited plan</b> or any edit ends the preview."),
         {QStringLiteral("edited-plan"), QStringLiteral("panel-plans")}},
        {QStringLiteral("conflict"),
         tr("Conflict"),
         Kind::Concept,
         tr("A place where a name cannot simply be sharded everywhere, so the plan must choose. <b>Repeated "
            "name</b>: a tensor carries the name twice, like the attention scores [batch, heads, seq, seq]; "
            "an "
            "axis can split only one of the two, the other is gathered where needed. <b>Cut name</b>: an op "
            "needs the whole dimension (a slice, a gather's index, a sort), so sharding it costs a gather "
            "there. The Conflicts panel lists each with the places it occurs (sites) and the options."),
         {QStringLiteral("competition-site"), QStringLiteral("name")}},
        {QStringLiteral("competition-site"),
         tr("Competition site"),
         Kind::Concept,
         tr("A place where a decision of the plan could not take effect: two names want the same mesh axis "
            "on one tensor (the earlier decision wins), or the size does not divide by the devices. The "
            "loser "
            "stays whole there, and the cost counts the data movement this needs. Many competition sites "
            "usually mean two decisions fight over one axis."),
         {QStringLiteral("conflict"), QStringLiteral("atoms"), QStringLiteral("decision")}},
        {QStringLiteral("mesh"),
         tr("Mesh, mesh axis"),
         Kind::Concept,
         tr("The devices arranged as a grid with named axes, e.g. data=2,model=4 for 8 GPUs. Sharding a name "
            "on an axis splits it over that axis's devices. An axis inside one node uses the fast links "
            "(NVLink), an axis across nodes the network."),
         {QStringLiteral("name"), QStringLiteral("collective")}},
        {QStringLiteral("usable-memory"),
         tr("Usable memory"),
         Kind::Concept,
         tr("The part of a device's memory a plan may fill: the device's memory minus a reserve kept free "
            "for "
            "the runtime and fragmentation (set under Mesh and training). A plan whose peak memory is above "
            "it "
            "does not fit."),
         {QStringLiteral("peak-memory")}},
        {QStringLiteral("peak-memory"),
         tr("Peak memory"),
         Kind::Concept,
         tr("The most memory one device holds at any moment of the step: parameters, gradients, optimizer "
            "state, the activations kept for the backward pass and temporary buffers. The Breakdown's Memory "
            "tab draws it over the step and names the op where it peaks."),
         {QStringLiteral("usable-memory"), QStringLiteral("remat")}},
        {QStringLiteral("step-time"),
         tr("Step time"),
         Kind::Concept,
         tr("The simulated time of one training step (or one forward pass) on one device: the compute of "
            "every op plus the collectives, less the part of the collectives that runs while the device "
            "computes. Lower is better; the Timeline shows how it is spent."),
         {QStringLiteral("collective"), QStringLiteral("panel-timeline")}},
        {QStringLiteral("collective"),
         tr("Collective"),
         Kind::Concept,
         tr("Data the devices exchange because of the plan. <b>all-gather</b>: every device gets the whole "
            "tensor from its pieces. <b>reduce-scatter</b>: partial sums are added up and each device keeps "
            "one piece of the result. <b>all-reduce</b>: partial sums are added up and every device gets the "
            "whole result (a reduce-scatter then an all-gather). <b>all-to-all</b>: each device sends a "
            "different piece to each other device (moving experts' tokens, or switching which dimension is "
            "split). <b>collective-permute</b>: each device sends to one neighbour (pipeline stages)."),
         {QStringLiteral("step-time"), QStringLiteral("mesh")}},
        {QStringLiteral("remat"),
         tr("Remat (rematerialization)"),
         Kind::Concept,
         tr("Keeping fewer activations for the backward pass and computing them again when needed: less "
            "memory, more compute. Per family of repeated layers: <b>none</b> keeps everything; "
            "<b>selective</b> recomputes the cheap, large parts (attention's softmax); <b>dots-saveable</b> "
            "keeps only matmul results; <b>full</b> keeps only each layer's input and recomputes the layer."),
         {QStringLiteral("peak-memory")}},
        {QStringLiteral("pipeline"),
         tr("Pipeline (pipeline parallelism)"),
         Kind::Concept,
         tr("Splitting the model's layers into consecutive stages, each on its own devices along one mesh "
            "axis; the batch flows through them in microbatches. Devices wait at the start and end of each "
            "step (the bubble); more microbatches make it smaller. Schedules: <b>gpipe</b> (all forwards, "
            "then all backwards), <b>1f1b</b> (alternates, keeping fewer activations), <b>interleaved</b> "
            "(several smaller stages per device, a smaller bubble)."),
         {QStringLiteral("microbatch"), QStringLiteral("expert-pp"), QStringLiteral("panel-pipeline")}},
        {QStringLiteral("microbatch"),
         tr("Microbatch"),
         Kind::Concept,
         tr("A slice of the batch processed on its own; the gradients of all microbatches are added before "
            "the update. Microbatches lower the activation memory, and a pipeline needs them to keep its "
            "stages busy."),
         {QStringLiteral("pipeline")}},
        {QStringLiteral("fsdp"),
         tr("FSDP (fully sharded data parallel)"),
         Kind::Concept,
         tr("Data parallelism in which each device stores only a slice of every weight, gradient and "
            "optimizer "
            "state, and gathers a layer's full weights just before using them. The expert plan is called "
            "<i>zero3</i>; <i>fsdp-tp</i> and <i>fsdp-pp</i> combine it with tensor or pipeline "
            "parallelism."),
         {QStringLiteral("expert-zero3"), QStringLiteral("expert-fsdp-tp")}},
        {QStringLiteral("search"),
         tr("Search"),
         Kind::Concept,
         tr("Shardscope tries many plans (a Monte Carlo tree search that starts from the expert plans and "
            "your pins) and keeps the fastest that fits. Each new best plan joins the Plans panel; the "
            "search "
            "tree shows what it tried."),
         {QStringLiteral("panel-search"), QStringLiteral("pin")}},
    };
}

// Plain words for each expert plan the engine offers (the engine's one-line description follows them).
QString expertText(const QString& id) {
    if (id == QLatin1String("dp"))
        return tr(
            "Data parallel: every device holds the whole model and works on its own part of the batch; "
            "the gradients are summed (all-reduce) before each update. Simple and fast while the model "
            "fits on one device.");
    if (id == QLatin1String("zero1"))
        return tr(
            "Like dp, but the optimizer state (Adam's moments) is split over the devices, and each "
            "updates its slice: saves memory at little cost.");
    if (id == QLatin1String("zero2"))
        return tr("Like zero1, and the gradients are split too: a reduce-scatter instead of an all-reduce.");
    if (id == QLatin1String("zero3"))
        return tr(
            "Also known as FSDP: weights, gradients and optimizer state are all split over the devices; "
            "each layer's weights are gathered just before use. The least memory of the data parallel "
            "plans, more communication.");
    if (id == QLatin1String("megatron"))
        return tr(
            "Tensor parallelism: each layer's matmuls are split over the devices (attention by heads, "
            "the MLP by its hidden width), with an all-reduce after each. Needs fast links between "
            "the devices.");
    if (id == QLatin1String("megatron-sp"))
        return tr(
            "Megatron plus sequence parallelism: the parts between the split matmuls (layer norms, "
            "dropout) are split by sequence position, which saves activation memory.");
    if (id == QLatin1String("dp-tp"))
        return tr(
            "Two kinds at once: data parallel over the data axis, Megatron tensor parallelism over the "
            "model axis.");
    if (id == QLatin1String("fsdp-tp"))
        return tr(
            "Two kinds at once: FSDP (zero3) over the data axis, Megatron tensor parallelism over the "
            "model axis. A common choice for large models on several nodes.");
    if (id == QLatin1String("ep"))
        return tr(
            "Expert parallelism for mixture-of-experts models: the experts are spread over the devices "
            "and tokens travel to their expert (all-to-all); the rest is data parallel.");
    if (id == QLatin1String("pp"))
        return tr(
            "Pipeline parallelism: the layers are split into stages along the pipeline axis and the "
            "batch flows through them in microbatches.");
    if (id == QLatin1String("pp-interleaved"))
        return tr(
            "Pipeline parallelism where each device holds several smaller stages, which shrinks the "
            "time devices wait at the start and end of a step.");
    if (id == QLatin1String("ptd-p"))
        return tr(
            "Pipeline, tensor and data parallelism together (as Megatron-LM trains its largest "
            "models): tensor parallel on the model axis, pipeline stages on the pipeline axis, data "
            "parallel on the rest.");
    if (id == QLatin1String("fsdp-pp"))
        return tr("FSDP (zero3) over the data axis with pipeline stages on the pipeline axis.");
    return {};
}

QList<GlossaryEntry> experts() {
    QList<GlossaryEntry> entries;
    for (const auto& expert : plan::expertPlans()) {
        const QString id = toQString(expert.id);
        QString text = expertText(id);
        const QString summary = toQString(expert.description);
        text = text.isEmpty() ? summary : text + QStringLiteral("<br><i>") + summary + QStringLiteral("</i>");
        text += tr("<br>Plan ▸ Start from an expert plan ▸ %1 starts from it.").arg(id);
        QStringList related{QStringLiteral("plan")};
        if (id.contains(QLatin1String("pp")) || id == QLatin1String("ptd-p"))
            related << QStringLiteral("pipeline");
        if (id == QLatin1String("zero3") || id.startsWith(QLatin1String("fsdp")))
            related << QStringLiteral("fsdp");
        entries.append({QStringLiteral("expert-") + id, tr("%1 (expert plan)").arg(id), Kind::ExpertPlan,
                        text, related});
    }
    return entries;
}

QList<GlossaryEntry> panels() {
    auto panel = [](const char* id, const QString& term, const QString& text, QStringList related) {
        return GlossaryEntry{QStringLiteral("panel-") + QLatin1String(id), term, Kind::Panel, text,
                             std::move(related)};
    };
    return {
        panel("graph", tr("Graph"),
              tr("The model's ops as boxes, grouped by module (double-click a module to open or close it). "
                 "Colours show the names; the shardings of the plan shown are written on the edges. Click an "
                 "op to see its details."),
              {QStringLiteral("name"), QStringLiteral("preview")}),
        panel("names", tr("Names panel"),
              tr("Every name and group of the model, largest first. Select one to light it up on the graph; "
                 "right-click to pin it on a mesh axis or to forbid an axis."),
              {QStringLiteral("name"), QStringLiteral("group"), QStringLiteral("pin")}),
        panel("conflicts", tr("Conflicts panel"),
              tr("The places where the plan must choose how to shard a name, with their options; activate an "
                 "option to apply it to the edited plan."),
              {QStringLiteral("conflict"), QStringLiteral("competition-site")}),
        panel("summary", tr("Model panel"),
              tr("What the model is: its parameters, FLOPs, ops and the sizes it was opened with."), {}),
        panel("parameters", tr("Parameters panel"),
              tr("The model's parameters (weights) with their shapes, sizes and roles."), {}),
        panel("opKinds", tr("Op kinds panel"), tr("How many ops of each kind the model has."), {}),
        panel("cost", tr("Cost panel"),
              tr("What the plan shown costs: step time, peak memory against the usable memory, and the "
                 "collectives. The line at the top says which plan: the edited plan, or a preview."),
              {QStringLiteral("step-time"), QStringLiteral("peak-memory"), QStringLiteral("usable-memory"),
               QStringLiteral("collective"), QStringLiteral("preview")}),
        panel("plan", tr("Plan panel"),
              tr("The decisions of the edited plan, pinned ones first, and how many places each reached; "
                 "right-click to pin, remove or forbid one, Delete removes it. Under them, rematerialization "
                 "per family of layers."),
              {QStringLiteral("decision"), QStringLiteral("pin"), QStringLiteral("remat")}),
        panel(
            "problem", tr("Mesh and training panel"),
            tr("The devices (mesh and hardware), whether to plan a training step or a forward pass, and the "
               "model's sizes. Apply plans the model again with them, keeping the plan where it still "
               "applies."),
            {QStringLiteral("mesh"), QStringLiteral("usable-memory")}),
        panel(
            "details", tr("Details panel"),
            tr("What is selected (an op, a name, a group, a module) under the plan shown: shapes, shardings "
               "and the collectives it causes."),
            {QStringLiteral("name"), QStringLiteral("collective")}),
        panel("timeline", tr("Timeline panel"),
              tr("One step of the plan shown over time: compute and collectives per device, and which "
                 "collectives run while the device computes."),
              {QStringLiteral("step-time"), QStringLiteral("collective")}),
        panel(
            "pipeline", tr("Pipeline panel"),
            tr("Sets the edited plan's microbatches and pipeline stages, and draws the schedule of the plan "
               "shown: which stage works on which microbatch when, and the idle time (bubble)."),
            {QStringLiteral("pipeline"), QStringLiteral("microbatch")}),
        panel("stableHlo", tr("StableHLO panel"), tr("The model's program as it was loaded (read only)."),
              {}),
        panel("messages", tr("Messages panel"),
              tr("Every error, warning and note of the session; the status bar shows the newest."), {}),
        panel("search", tr("Search panel"),
              tr("Runs a search for a better plan from the edited plan's pins, for a time budget, and shows "
                 "the best step time found over time. Apply best plan makes the best plan the edited plan."),
              {QStringLiteral("search"), QStringLiteral("pin")}),
        panel(
            "plans", tr("Plans panel"),
            tr("The plans of the session: the expert plans and the search's best plans. Select one to "
               "preview it; double-click it, or press Edit this plan, to make it the edited plan (your pins "
               "stay); select two and press Compare to compare them."),
            {QStringLiteral("preview"), QStringLiteral("edited-plan"), QStringLiteral("panel-compare")}),
        panel("breakdown", tr("Breakdown panel"),
              tr("Where the plan shown spends its time and memory: its collectives, the time per module or "
                 "per op, and memory over the step with what is live at the peak. The line at the top says "
                 "which plan it is."),
              {QStringLiteral("collective"), QStringLiteral("peak-memory"), QStringLiteral("preview")}),
        panel("searchTree", tr("Search tree panel"),
              tr("What the search tried, as a tree of decisions; double-click a node to preview its plan."),
              {QStringLiteral("search"), QStringLiteral("preview")}),
        panel("compare", tr("Compare panel"),
              tr("Two plans side by side: step time, memory, the decisions that differ, collectives per kind "
                 "and the ops whose shardings differ (click one to find it on the graph). Preview A and "
                 "Preview B show either plan on the graph and the other panels without editing it."),
              {QStringLiteral("panel-plans")}),
    };
}

}  // namespace

const QList<GlossaryEntry>& glossary() {
    static const QList<GlossaryEntry> entries = [] {
        QList<GlossaryEntry> all = concepts();
        all += experts();
        all += panels();
        return all;
    }();
    return entries;
}

const GlossaryEntry* glossaryEntry(const QString& id) {
    for (const GlossaryEntry& entry : glossary())
        if (entry.id == id)
            return &entry;
    return nullptr;
}

QList<const GlossaryEntry*> searchGlossary(const QString& text) {
    const QString wanted = text.trimmed();
    QList<const GlossaryEntry*> byTerm, byText;
    for (const GlossaryEntry& entry : glossary()) {
        if (entry.term.contains(wanted, Qt::CaseInsensitive) ||
            entry.id.contains(wanted, Qt::CaseInsensitive))
            byTerm.append(&entry);
        else if (entry.text.contains(wanted, Qt::CaseInsensitive))
            byText.append(&entry);
    }
    return byTerm + byText;
}

QString glossaryKindName(GlossaryEntry::Kind kind) {
    switch (kind) {
        case Kind::Concept:
            return tr("Concepts");
        case Kind::ExpertPlan:
            return tr("Expert plans");
        case Kind::Panel:
            return tr("Panels");
    }
    return {};
}

QUrl glossaryUrl(const QString& id) {
    QUrl url;
    url.setScheme(QStringLiteral("glossary"));
    url.setPath(id);
    return url;
}

std::optional<QString> glossaryIdOf(const QUrl& url) {
    if (url.scheme() != QLatin1String("glossary") || !glossaryEntry(url.path()))
        return std::nullopt;
    return url.path();
}

namespace {

QString relatedLinks(const GlossaryEntry& entry) {
    QStringList links;
    for (const QString& id : entry.seeAlso)
        if (const GlossaryEntry* other = glossaryEntry(id))
            links.append(QStringLiteral("<a href=\"%1\">%2</a>")
                             .arg(glossaryUrl(id).toString(), other->term.toHtmlEscaped()));
    return links.isEmpty()
               ? QString()
               : QStringLiteral("<p>%1 %2</p>").arg(tr("See also:"), links.join(QStringLiteral(", ")));
}

}  // namespace

QString glossaryHtml(const GlossaryEntry& entry) {
    return QStringLiteral("<h3>%1</h3><p>%2</p>").arg(entry.term.toHtmlEscaped(), entry.text) +
           relatedLinks(entry);
}

QString whatsThisOf(const QString& id) {
    const GlossaryEntry* entry = glossaryEntry(id);
    if (!entry)
        return {};
    return QStringLiteral("<b>%1</b><p>%2</p>").arg(entry->term.toHtmlEscaped(), entry->text) +
           relatedLinks(*entry);
}

QString withGlossary(const QString& tip, const QString& id) {
    const GlossaryEntry* entry = glossaryEntry(id);
    if (!entry)
        return tip;
    return tr("%1\nGlossary: %2 (F1)").arg(tip, entry->term);
}

std::optional<QString> glossaryIdInTip(const QString& tip) {
    for (const GlossaryEntry& entry : glossary())
        if (tip.endsWith(tr("\nGlossary: %1 (F1)").arg(entry.term)))
            return entry.id;
    return std::nullopt;
}

}  // namespace shardscope::ui
