// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "widgets/model_text_view.h"

#include <algorithm>
#include <utility>

#include <QTextCursor>
#include <QTextDocument>

#include "widgets/fixed_pitch_font.h"

namespace shardscope::ui {

ModelTextView::ModelTextView(QWidget* parent) : QPlainTextEdit(parent) {
    setReadOnly(true);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setFont(fixedPitchFont());
    setUndoRedoEnabled(false);
    timer_.setInterval(0);
    connect(&timer_, &QTimer::timeout, this, &ModelTextView::appendSlice);
}

void ModelTextView::showText(QString text) {
    clear();
    pending_ = std::move(text);
    position_ = 0;
    timer_.stop();
    // Only while in sight: a view out of sight (a tab behind another) fills once it comes into sight.
    if (inView_)
        startLoading();
}

void ModelTextView::setInView(bool inView) {
    inView_ = inView;
    if (inView_ && isLoading() && !timer_.isActive())
        startLoading();
    else if (!inView_)
        timer_.stop();
}

void ModelTextView::startLoading() {
    appendSlice();  // the first screenful at once: when it is all, nothing is loading and nothing to wait for
    if (isLoading())
        timer_.start();
}

void ModelTextView::appendSlice() {
    if (!isLoading())
        return;
    qsizetype end = std::min(pending_.size(), position_ + kSliceBytes);
    if (end < pending_.size()) {
        const qsizetype newline = pending_.indexOf(QLatin1Char('\n'), end);
        end = newline < 0 ? pending_.size() : newline + 1;
    }
    QTextCursor cursor(document());
    cursor.movePosition(QTextCursor::End);
    cursor.insertText(pending_.sliced(position_, end - position_));
    position_ = end;
    if (!isLoading()) {
        pending_.clear();
        position_ = 0;
        // Said only from the event loop, once the last slice of a text that did not fit in one is in.
        if (timer_.isActive()) {
            timer_.stop();
            emit loaded();
        }
    }
}

}  // namespace shardscope::ui
