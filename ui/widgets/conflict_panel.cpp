// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "widgets/conflict_panel.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <QEvent>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QSplitter>
#include <QStyle>
#include <QTextBrowser>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

#include "core/plan_editor.h"

namespace shardscope::ui {

namespace {

const QColor kSplit(0x1b, 0x7f, 0x3a);
const QColor kWhole(0xb0, 0x30, 0x20);

void arrow(QPainter& painter, QPointF from, QPointF to, const QColor& color, bool dashed) {
    QPen pen(color, 1.6, dashed ? Qt::DashLine : Qt::SolidLine);
    painter.setPen(pen);
    painter.drawLine(from, to);
    const double angle = std::atan2(to.y() - from.y(), to.x() - from.x());
    const double size = 7;
    QPainterPath head;
    head.moveTo(to);
    head.lineTo(to - QPointF(size * std::cos(angle - 0.45), size * std::sin(angle - 0.45)));
    head.lineTo(to - QPointF(size * std::cos(angle + 0.45), size * std::sin(angle + 0.45)));
    head.closeSubpath();
    painter.setPen(Qt::NoPen);
    painter.setBrush(color);
    painter.drawPath(head);
    painter.setBrush(Qt::NoBrush);
}

// Draws `shape` as boxes from `left` at `top`; the name's dimensions filled with `color` (split into
// `stripes` shards when more than 1). Returns each box.
QList<QRectF> tensor(QPainter& painter, const ConflictPicture& picture, double left, double top,
                     double boxWidth, double boxHeight, int stripes) {
    QList<QRectF> boxes;
    const QFontMetricsF metrics(painter.font());
    for (std::size_t d = 0; d < picture.shape.size(); ++d) {
        const QRectF box(left + static_cast<double>(d) * boxWidth, top, boxWidth, boxHeight);
        boxes << box;
        const bool named = std::find(picture.dimensions.begin(), picture.dimensions.end(),
                                     static_cast<int>(d)) != picture.dimensions.end();
        if (named) {
            if (stripes > 1) {
                for (int s = 0; s < stripes; ++s) {
                    const QRectF stripe(box.left() + box.width() * s / stripes, box.top(),
                                        box.width() / stripes, box.height());
                    painter.fillRect(stripe, s % 2 == 0 ? picture.color : picture.color.darker(125));
                }
            } else {
                painter.fillRect(box, picture.color);
            }
        } else {
            painter.fillRect(box, QColor(0xf4, 0xf4, 0xf4));
        }
        painter.setPen(QPen(QColor(0x60, 0x60, 0x60), 1));
        painter.drawRect(box);
        const QString size = QString::number(picture.shape[d]);
        if (metrics.horizontalAdvance(size) + 4 <= box.width()) {
            painter.setPen(Qt::black);
            painter.drawText(box, Qt::AlignCenter, size);
        }
    }
    return boxes;
}

}  // namespace

ConflictDiagram::ConflictDiagram(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

QSize ConflictDiagram::sizeHint() const {
    return {360, picture_ ? fontMetrics().height() * 9 : 0};
}

void ConflictDiagram::setPicture(std::optional<ConflictPicture> picture) {
    picture_ = std::move(picture);
    updateGeometry();
    setFixedHeight(sizeHint().height());
    update();
}

void ConflictDiagram::paintEvent(QPaintEvent*) {
    if (!picture_ || picture_->shape.empty())
        return;
    const ConflictPicture& p = *picture_;
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QFontMetricsF metrics(font());
    const double line = metrics.height();
    const double w = width() - 16;
    const auto n = static_cast<double>(p.shape.size());
    const QString axis = p.axis.isEmpty() ? tr("no axis") : p.axis;
    painter.setPen(palette().color(QPalette::WindowText));
    if (p.kind == analysis::ConflictKind::RepeatedName) {
        const double boxWidth = std::clamp(w / n, 24.0, 64.0);
        const double left = 8 + (w - boxWidth * n) / 2;
        const double top = line * 1.4;
        painter.drawText(QRectF(8, 0, w, line * 1.2), Qt::AlignLeft | Qt::AlignVCenter,
                         tr("%1 twice in one tensor: an axis splits only one").arg(p.label));
        const QList<QRectF> boxes = tensor(painter, p, left, top, boxWidth, line * 1.6, 1);
        // The name under its dimensions.
        for (const int d : p.dimensions)
            if (d >= 0 && d < boxes.size()) {
                painter.setPen(palette().color(QPalette::WindowText));
                painter.drawText(QRectF(boxes[d].left() - 20, boxes[d].bottom(), boxes[d].width() + 40, line),
                                 Qt::AlignHCenter | Qt::AlignTop, p.label);
            }
        // The axis, reaching the chosen dimension and not the other.
        const QString chip = axis;
        const double chipWidth = metrics.horizontalAdvance(chip) + 16;
        const QRectF chipBox(8 + (w - chipWidth) / 2, height() - line * 1.6 - 4, chipWidth, line * 1.5);
        painter.setPen(QPen(QColor(0x40, 0x40, 0x40), 1));
        painter.setBrush(QColor(0xe8, 0xe8, 0xf4));
        painter.drawRoundedRect(chipBox, 6, 6);
        painter.setBrush(Qt::NoBrush);
        painter.drawText(chipBox, Qt::AlignCenter, chip);
        int shown = 0;
        for (std::size_t i = 0; i < p.dimensions.size() && shown < 2; ++i) {
            const int d = p.dimensions[i];
            if (d < 0 || d >= boxes.size())
                continue;
            const bool takes = static_cast<int>(i) == p.chosen && !p.axis.isEmpty();
            const QPointF end(boxes[d].center().x(), boxes[d].bottom() + line + 2);
            const QPointF start(chipBox.center().x() + (end.x() < chipBox.center().x() ? -8 : 8),
                                chipBox.top());
            arrow(painter, start, end, takes ? kSplit : kWhole, !takes);
            const QPointF middle = (start + end) / 2;
            painter.setPen(takes ? kSplit : kWhole);
            const QString word = takes ? tr("split") : tr("stays whole");
            const double textWidth = metrics.horizontalAdvance(word);
            const bool leftSide = end.x() < chipBox.center().x();
            painter.drawText(QRectF(leftSide ? middle.x() - textWidth - 10 : middle.x() + 10,
                                    middle.y() - line / 2, textWidth + 2, line),
                             Qt::AlignVCenter, word);
            ++shown;
        }
        return;
    }
    // A cut name: sharded → all-gather → whole → the op that needs it whole.
    const QString op = p.op.isEmpty() ? tr("the op") : p.op;
    const double opWidth = metrics.horizontalAdvance(op) + 16;
    const double gap = 44;
    const double boxWidth = std::clamp((w - opWidth - 2 * gap) / (2 * n), 12.0, 48.0);
    const double top = line * 1.4;
    const double boxHeight = line * 1.6;
    painter.drawText(QRectF(8, 0, w, line * 1.2), Qt::AlignLeft | Qt::AlignVCenter,
                     p.axis.isEmpty()
                         ? tr("Wherever %1 is sharded, it is gathered before %2").arg(p.label, op)
                         : tr("%1 sharded on %2 is gathered before %3").arg(p.label, axis, op));
    const QList<QRectF> sharded = tensor(painter, p, 8, top, boxWidth, boxHeight, 4);
    const double wholeLeft = 8 + boxWidth * n + gap;
    const QList<QRectF> whole = tensor(painter, p, wholeLeft, top, boxWidth, boxHeight, 1);
    const double middle = top + boxHeight / 2;
    arrow(painter, QPointF(sharded.back().right() + 4, middle), QPointF(whole.front().left() - 4, middle),
          kWhole, false);
    const QRectF opBox(whole.back().right() + gap, top, opWidth, boxHeight);
    arrow(painter, QPointF(whole.back().right() + 4, middle), QPointF(opBox.left() - 4, middle),
          QColor(0x40, 0x40, 0x40), false);
    painter.setPen(QPen(QColor(0x40, 0x40, 0x40), 1));
    painter.setBrush(QColor(0xfd, 0xf0, 0xd8));
    painter.drawRoundedRect(opBox, 4, 4);
    painter.setBrush(Qt::NoBrush);
    painter.drawText(opBox, Qt::AlignCenter, op);
    painter.setPen(palette().color(QPalette::WindowText));
    const double below = top + boxHeight + 4;
    painter.drawText(QRectF(8, below, boxWidth * n, line * 2),
                     Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, tr("a shard per device"));
    painter.drawText(QRectF(wholeLeft, below, boxWidth * n, line * 2),
                     Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, tr("whole on every device"));
    painter.setPen(kWhole);
    painter.drawText(QRectF(sharded.back().right(), top + boxHeight + 2, gap, line), Qt::AlignCenter,
                     tr("gather"));
}

ConflictPanel::ConflictPanel(PlanEditor* editor, QWidget* parent)
    : QWidget(parent),
      editor_(editor),
      model_(new ConflictModel(this)),
      view_(new QTreeView(this)),
      diagram_(new ConflictDiagram(this)),
      explanation_(new QTextBrowser(this)),
      effect_(new QLabel(this)) {
    model_->setActive(false);  // until shown
    view_->setObjectName(QStringLiteral("conflictsView"));
    view_->setModel(model_);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::SingleSelection);
    view_->setAlternatingRowColors(true);
    view_->setUniformRowHeights(true);
    view_->setTextElideMode(Qt::ElideRight);
    view_->setAllColumnsShowFocus(true);
    // The label takes what the numbers leave; the numbers are as wide as they need (measured once per batch
    // of updates: QHeaderView::ResizeToContents measured every row on each of the many updates the options'
    // costs make, and stalled the window on large models).
    QHeaderView* header = view_->header();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(ConflictModel::LabelColumn, QHeaderView::Stretch);
    for (int column = ConflictModel::StepTimeColumn; column < ConflictModel::ColumnCount; ++column)
        header->setSectionResizeMode(column, QHeaderView::Interactive);
    header->setMinimumSectionSize(fontMetrics().horizontalAdvance(QStringLiteral("Sites")) + 12);
    // The numbers never squeeze the labels out: the list is at least as wide as both need.
    // (Queued: the header resizes its sections one after another, and the last one counts.)
    connect(
        header, &QHeaderView::sectionResized, this,
        [this](int column) {
            if (column != ConflictModel::LabelColumn)
                fitColumns();
        },
        Qt::QueuedConnection);
    connect(model_, &QAbstractItemModel::dataChanged, this, &ConflictPanel::scheduleSizing);
    connect(model_, &QAbstractItemModel::modelReset, this, &ConflictPanel::scheduleSizing);
    connect(view_, &QTreeView::expanded, this, &ConflictPanel::scheduleSizing);
    sizeNumberColumns();
    fitColumns();

    diagram_->setObjectName(QStringLiteral("conflictDiagram"));
    explanation_->setObjectName(QStringLiteral("conflictExplanation"));
    explanation_->setOpenLinks(false);
    explanation_->setFrameShape(QFrame::NoFrame);
    explanation_->setPlaceholderText(tr("Select a conflict to see what it means and what its options do."));
    effect_->setObjectName(QStringLiteral("conflictEffect"));
    effect_->setWordWrap(true);
    effect_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    effect_->setFrameShape(QFrame::StyledPanel);
    effect_->setContentsMargins(4, 2, 4, 2);
    effect_->hide();

    // Under the list: the picture, then the words (which scroll).
    auto* about = new QWidget(this);
    auto* aboutLayout = new QVBoxLayout(about);
    aboutLayout->setContentsMargins(0, 4, 0, 0);
    aboutLayout->setSpacing(2);
    aboutLayout->addWidget(diagram_);
    aboutLayout->addWidget(explanation_, 1);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(view_);
    splitter->addWidget(about);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    splitter->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(splitter, 1);
    layout->addWidget(effect_);

    connect(model_, &ConflictModel::evaluatingChanged, this, &ConflictPanel::evaluatingChanged);
    connect(model_, &QAbstractItemModel::modelReset, this, [this] { view_->expandToDepth(1); });
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { selected(current); });
    connect(view_, &QAbstractItemView::activated, this, [this](const QModelIndex& index) {
        if (const auto choice = model_->choiceAt(index))
            choose(*choice);
    });
    connect(editor_, &PlanEditor::planChanged, this, [this] {
        if (editor_->problem() != model_->problem()) {
            conflict_.reset();
            site_.reset();
            option_.reset();
            pending_.reset();
            effect_->clear();
            effect_->hide();
            model_->setProblem(editor_->problem());
            explain();
        }
        if (pending_ && editor_->plan() != pending_->after)
            pending_.reset();  // undone, or another edit
        model_->planChanging();
    });
    connect(editor_, &PlanEditor::evaluated, this, [this](std::shared_ptr<const PlanState> state) {
        if (!state || editor_->problem() != model_->problem())
            return;
        model_->setPlanState(state);
        explain();
        if (pending_ && state->plan == pending_->after) {
            showEffect(state.get());
            emit effect(effectText());
            pending_.reset();
        }
    });
    connect(editor_, &PlanEditor::evaluationFailed, this, [this] { model_->cancelEvaluation(); });
}

int ConflictPanel::minimumLabelWidth() const {
    // Three levels of indentation, a colour swatch and about eighteen characters.
    return view_->indentation() * 3 + view_->iconSize().width() + fontMetrics().averageCharWidth() * 18;
}

void ConflictPanel::sizeNumberColumns() {
    sizingPending_ = false;
    // As wide as the widest text of the column among the rows in sight, as QHeaderView::ResizeToContents
    // would, but measured once per batch of updates.
    const QFont plain = view_->font();
    QFont bold = plain;
    bold.setBold(true);
    const QFontMetrics plainMetrics(plain), boldMetrics(bold);
    const int padding = 2 * view_->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, view_) + 8;
    int widths[ConflictModel::ColumnCount] = {};
    for (int column = ConflictModel::StepTimeColumn; column < ConflictModel::ColumnCount; ++column)
        widths[column] =
            plainMetrics.horizontalAdvance(model_->headerData(column, Qt::Horizontal).toString());
    int rows = 0;
    const auto measure = [&](const auto& self, const QModelIndex& parent) -> void {
        for (int row = 0; row < model_->rowCount(parent) && rows < 2000; ++row, ++rows) {
            const QModelIndex index = model_->index(row, 0, parent);
            for (int column = ConflictModel::StepTimeColumn; column < ConflictModel::ColumnCount; ++column) {
                const QModelIndex cell = index.siblingAtColumn(column);
                const QVariant font = cell.data(Qt::FontRole);
                const bool isBold = font.isValid() && font.value<QFont>().bold();
                const QFontMetrics& metrics = isBold ? boldMetrics : plainMetrics;
                widths[column] = std::max(widths[column], metrics.horizontalAdvance(cell.data().toString()));
            }
            if (parent == QModelIndex() || view_->isExpanded(index))
                self(self, index);
        }
    };
    measure(measure, QModelIndex());
    QHeaderView* header = view_->header();
    for (int column = ConflictModel::StepTimeColumn; column < ConflictModel::ColumnCount; ++column)
        header->resizeSection(column, std::max(header->minimumSectionSize(), widths[column] + padding));
}

void ConflictPanel::scheduleSizing() {
    if (!std::exchange(sizingPending_, true))
        QTimer::singleShot(0, this, &ConflictPanel::sizeNumberColumns);
}

void ConflictPanel::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange) {
        sizeNumberColumns();
        fitColumns();
    }
}

void ConflictPanel::fitColumns() {
    int numbers = 0;
    for (int column = ConflictModel::StepTimeColumn; column < ConflictModel::ColumnCount; ++column)
        numbers += view_->header()->sectionSize(column);
    const int scrollBar = std::max(view_->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, view_),
                                   view_->verticalScrollBar()->sizeHint().width());
    const int chrome = scrollBar + 2 * view_->frameWidth();
    view_->setMinimumWidth(minimumLabelWidth() + numbers + chrome);
}

void ConflictPanel::setInView(bool inView) {
    model_->setActive(inView);
}

QString ConflictPanel::effectText() const {
    return effect_->text();
}

void ConflictPanel::choose(const ConflictChoice& choice) {
    const auto problem = model_->problem();
    if (!problem || problem != editor_->problem())
        return;
    Pending pending{choice, editor_->plan(), withChoice(editor_->plan(), choice, problem->mesh()),
                    editor_->state()};
    const bool changes = pending.after != pending.before;
    pending_ = std::move(pending);
    if (changes)
        editor_->replacePlan(pending_->after, choiceText(*problem, choice), false);
    showEffect(nullptr);
    // Said at once when there is nothing to wait for: the plan stays, or the choice waits for an axis.
    if (!changes || choiceWaitsForAxis(*problem, choice, pending_->before, pending_->after)) {
        emit effect(effectText());
        if (!changes)
            pending_.reset();
    }
}

void ConflictPanel::showEffect(const PlanState* afterState) {
    const auto problem = model_->problem();
    if (!problem || !pending_)
        return;
    const cost::Evaluation* before = pending_->beforeState ? &pending_->beforeState->evaluation : nullptr;
    effect_->setText(choiceEffect(*problem, pending_->choice, pending_->before, pending_->after, before,
                                  afterState ? &afterState->evaluation : nullptr));
    effect_->show();
}

void ConflictPanel::selected(const QModelIndex& index) {
    const auto conflict = model_->conflictAt(index);
    if (!conflict) {
        conflict_.reset();
        explain();
        return;
    }
    model_->setFocus(*conflict);
    conflict_ = conflict;
    site_ = model_->siteAt(index);
    option_.reset();
    if (model_->choiceAt(index))
        option_ = static_cast<std::size_t>(index.row());
    explain();
    if (const auto body = model_->bodyIndexAt(index)) {
        emit opSelected(*body);
        return;
    }
    emit nameSelected(model_->problem()->space().conflicts[*conflict].name);
}

void ConflictPanel::explain() {
    const auto problem = model_->problem();
    if (!problem || !conflict_ || *conflict_ >= problem->space().conflicts.size()) {
        diagram_->setPicture(std::nullopt);
        explanation_->clear();
        explanation_->setPlaceholderText(problem && problem->space().conflicts.empty()
                                             ? tr("This model has no conflicts: every name can take a mesh "
                                                  "axis everywhere it occurs.")
                                             : tr("Select a conflict to see what it means and what its "
                                                  "options do."));
        return;
    }
    const auto state = model_->planState();
    const plan::Plan* plan = state ? &state->plan : nullptr;
    const std::size_t site = site_.value_or(0);
    ConflictPicture picture = conflictPicture(*problem, plan, *conflict_, site);
    // An option selected: what it would do.
    if (option_) {
        const ConflictChoice choice = conflictChoice(problem->space(), *conflict_, *option_);
        if (choice.kind == ConflictChoice::Kind::LeaveUnsharded)
            picture.axis.clear();
        else if (choice.kind == ConflictChoice::Kind::Resolve)
            picture.chosen = choice.dimension;
    }
    diagram_->setPicture(picture);
    explanation_->setHtml(conflictExplanation(*problem, plan, *conflict_, site));
}

}  // namespace shardscope::ui
