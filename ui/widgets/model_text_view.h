// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The model's StableHLO as text: read-only, fixed-pitch, filled a slice at a time from the event loop, so
// that a large model's megabytes of text never hold up the window.
#pragma once

#include <QPlainTextEdit>
#include <QTimer>

namespace shardscope::ui {

class ModelTextView : public QPlainTextEdit {
    Q_OBJECT

public:
    explicit ModelTextView(QWidget* parent = nullptr);

    // Replaces the text with `text`, shown a slice (about kSliceBytes, ending at a line's end) per turn of
    // the event loop while the view is in sight.
    void showText(QString text);
    // Whether part of the text is still to come.
    bool isLoading() const { return position_ < pending_.size(); }
    // Whether it is coming now (the view is in sight).
    bool isArriving() const { return timer_.isActive(); }
    // Whether the view is in sight (its dock shown and in front of its tabs: Qt keeps a dock tabbed behind
    // another visible). The text arrives only while it is.
    void setInView(bool inView);

    static constexpr qsizetype kSliceBytes = 8 * 1024;

signals:
    // The last slice of a text longer than one slice is in (not said for a text shown at once).
    void loaded();

private:
    void startLoading();
    void appendSlice();

    QString pending_;
    qsizetype position_ = 0;
    bool inView_ = false;
    QTimer timer_;
};

}  // namespace shardscope::ui
