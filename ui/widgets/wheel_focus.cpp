// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "widgets/wheel_focus.h"

#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QEvent>
#include <QScrollBar>
#include <QWidget>

namespace shardscope::ui {

namespace {

// The value field `widget` is or belongs to (a spin box's line edit, a combo box's): nullptr for any other
// widget. Scroll bars are for scrolling and stay as they are.
QWidget* valueField(QWidget* widget) {
    for (int depth = 0; widget && depth < 2; ++depth, widget = widget->parentWidget()) {
        if (qobject_cast<QAbstractSpinBox*>(widget) || qobject_cast<QComboBox*>(widget))
            return widget;
        if (qobject_cast<QAbstractSlider*>(widget) && !qobject_cast<QScrollBar*>(widget))
            return widget;
    }
    return nullptr;
}

}  // namespace

void WheelFocusPolicy::install(QApplication& application) {
    if (application.findChild<WheelFocusPolicy*>(QString(), Qt::FindDirectChildrenOnly))
        return;
    application.installEventFilter(new WheelFocusPolicy(&application));
}

bool WheelFocusPolicy::wheelChangesValue(const QWidget& widget) {
    QWidget* field = valueField(const_cast<QWidget*>(&widget));
    return field && field->hasFocus();
}

bool WheelFocusPolicy::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() != QEvent::Polish && event->type() != QEvent::Wheel)
        return false;
    if (!watched->isWidgetType())
        return false;
    auto* widget = static_cast<QWidget*>(watched);
    QWidget* field = valueField(widget);
    if (!field)
        return false;
    if (event->type() == QEvent::Polish) {
        // Qt::WheelFocus would give the field focus on the very wheel event that should scroll the panel.
        if (field == widget && field->focusPolicy() == Qt::WheelFocus)
            field->setFocusPolicy(Qt::StrongFocus);
        return false;
    }
    if (field->hasFocus())
        return false;
    // Filtered but not accepted: QApplication passes the wheel on to the parent.
    event->ignore();
    return true;
}

}  // namespace shardscope::ui
