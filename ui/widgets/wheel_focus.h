// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The wheel scrolls panels; it changes a value only in the field the user is working in.
#pragma once

#include <QObject>

class QApplication;
class QWidget;

namespace shardscope::ui {

// An application-wide event filter: spin boxes, combo boxes and sliders take focus by click or Tab only
// (Qt::StrongFocus, not the wheel), and a wheel event over one that does not have focus is passed on to its
// parent (the scroll area scrolls) instead of changing its value.
class WheelFocusPolicy : public QObject {
    Q_OBJECT

public:
    // Installs the one filter on `application` (again: nothing more).
    static void install(QApplication& application);
    // Whether the wheel over `widget` changes a value rather than scrolls: an editable field (spin box,
    // combo box, slider, or a child of one) that has focus.
    static bool wheelChangesValue(const QWidget& widget);

    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    explicit WheelFocusPolicy(QObject* parent) : QObject(parent) {}
};

}  // namespace shardscope::ui
