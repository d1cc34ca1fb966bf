// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Settings that behave (issue 23, part 6): a model opens with the settings shown, the wheel changes only the
// field that has focus, every error and warning stays in the Messages log, names get colours far apart, and
// the StableHLO view is fixed-pitch whatever fonts the machine has.
#include <algorithm>
#include <cmath>
#include <limits>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFontDatabase>
#include <QFontInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>

#include "core/message_log.h"
#include "core/name_style.h"
#include "core/plan_editor.h"
#include "ui_test_support.h"
#include "widgets/fixed_pitch_font.h"
#include "widgets/main_window.h"
#include "widgets/problem_editor.h"
#include "widgets/search_panel.h"
#include "widgets/session_docks.h"
#include "widgets/wheel_focus.h"

using namespace shardscope;
using namespace shardscope::ui;

namespace {

constexpr int kLoadTimeoutMs = 60'000;

// A wheel notch up over the middle of `widget`; returns whether the widget accepted it.
bool wheel(QWidget& widget) {
    const QPointF at(widget.width() / 2.0, widget.height() / 2.0);
    QWheelEvent event(at, widget.mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(&widget, &event);
    return event.isAccepted();
}

}  // namespace

class TestUiSettings : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("Shardscope"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_ui_settings"));
    }

    // The trial's case: ticking the training step and mixed precision, and moving the efficiency, then
    // opening a model without Apply. The model opens with what the panel shows, which says it is not applied
    // until then.
    void opensWithTheVisibleSettings() {
        MainWindow window;
        window.show();
        auto* editor = window.findChild<ProblemEditor*>(QStringLiteral("problemEditor"));
        QVERIFY(editor);
        auto* train = editor->findChild<QCheckBox*>(QStringLiteral("trainCheck"));
        auto* mixed = editor->findChild<QCheckBox*>(QStringLiteral("mixedPrecisionCheck"));
        auto* efficiency = editor->findChild<QDoubleSpinBox*>(QStringLiteral("efficiencySpin"));
        auto* unapplied = editor->findChild<QLabel*>(QStringLiteral("unappliedLabel"));
        QVERIFY(train && mixed && efficiency && unapplied);
        QVERIFY(!editor->isUnapplied());
        QVERIFY(!unapplied->isVisibleTo(editor));

        train->setChecked(true);
        mixed->setChecked(true);
        QVERIFY(editor->isUnapplied());
        QVERIFY(unapplied->isVisibleTo(editor));
        QVERIFY(!window.spec().train);  // nothing applied yet
        if (const QString shots = qEnvironmentVariable("SHARDSCOPE_PANEL_SHOTS"); !shots.isEmpty()) {
            QVERIFY(window.showDock(QStringLiteral("problem")));
            QTRY_VERIFY(unapplied->isVisible());
            QVERIFY(editor->grab().save(shots + QStringLiteral("/settings-unapplied.png")));
        }

        // zoo:demo has f32 parameters: mixed precision cannot plan it, and the open says so.
        QSignalSpy shown(&window, &MainWindow::modelShown);
        QSignalSpy failed(&window, &MainWindow::modelFailed);
        window.openModel(QStringLiteral("zoo:demo"));
        QVERIFY(failed.wait(kLoadTimeoutMs));
        QVERIFY2(failed.last().first().toString().contains(QLatin1String("mixed precision")),
                 qPrintable(failed.last().first().toString()));

        // Unticking it and opening again opens the model, with the training step and the efficiency shown
        // (it used to open with the settings last applied, and fail identically).
        mixed->setChecked(false);
        efficiency->setValue(0.45);
        window.openModel(QStringLiteral("zoo:demo"));
        QVERIFY2(shown.wait(kLoadTimeoutMs), qPrintable(window.statusBar()->currentMessage()));
        const ProblemSpec& opened = window.currentModel()->problem->spec;
        QVERIFY(opened.train);
        QVERIFY(!opened.mixedPrecision);
        QCOMPARE(opened.cost.efficiency, 0.45);
        QVERIFY(!editor->isUnapplied());
        QVERIFY(!unapplied->isVisibleTo(editor));

        // Settings shown that cannot load: the open fails and says why, and the model shown stays.
        auto* sizes = editor->findChild<QLineEdit*>(QStringLiteral("sizesEdit"));
        QVERIFY(sizes);
        sizes->clear();
        QTest::keyClicks(sizes, QStringLiteral("batch=banana"));  // textEdited revalidates
        QVERIFY(!editor->isValid());
        failed.clear();
        window.openModel(QStringLiteral("zoo:gpt2-small"));
        QCOMPARE(failed.size(), 1);
        QVERIFY2(failed.first().first().toString().contains(QLatin1String("Mesh and training")),
                 qPrintable(failed.first().first().toString()));
        QCOMPARE(window.currentModel()->source, QStringLiteral("zoo:demo"));
    }

    // The wheel over a spin box or combo box that does not have focus scrolls the panel (the event goes on to
    // the parent) and leaves the value; once the field has focus the wheel changes it.
    void wheelChangesOnlyFocusedFields() {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QVERIFY(window.showDock(QStringLiteral("problem")));
        auto* efficiency = window.findChild<QDoubleSpinBox*>(QStringLiteral("efficiencySpin"));
        auto* optimizer = window.findChild<QComboBox*>(QStringLiteral("optimizerCombo"));
        QVERIFY(efficiency && optimizer);
        QTRY_VERIFY(efficiency->isVisible());
        QCOMPARE(efficiency->focusPolicy(), Qt::StrongFocus);  // not Qt::WheelFocus: the wheel gives no focus
        efficiency->setValue(0.70);

        QVERIFY(!efficiency->hasFocus());
        QVERIFY(!wheel(*efficiency));  // passed on, to scroll the panel
        QCOMPARE(efficiency->value(), 0.70);
        QVERIFY(!WheelFocusPolicy::wheelChangesValue(*efficiency));

        efficiency->setFocus(Qt::MouseFocusReason);
        QTRY_VERIFY(efficiency->hasFocus());
        QVERIFY(WheelFocusPolicy::wheelChangesValue(*efficiency));
        wheel(*efficiency);
        QCOMPARE(efficiency->value(), 0.75);

        // A combo box likewise (enabled with the training step).
        window.findChild<QCheckBox*>(QStringLiteral("trainCheck"))->setChecked(true);
        const int choice = optimizer->currentIndex();
        QVERIFY(!optimizer->hasFocus());
        QVERIFY(!wheel(*optimizer));
        QCOMPARE(optimizer->currentIndex(), choice);
    }

    // Errors, warnings and the load's warnings stay in the Messages log (time, severity, source) for the
    // session; the status bar still flashes the newest.
    void messagesKeepEveryErrorAndWarning() {
        QTemporaryDir dir;
        const QString twoHeads = fixtures::writeTwoHeads(dir);
        QVERIFY(!twoHeads.isEmpty());
        MainWindow window;
        window.show();
        MessageLog* log = window.messageLog();
        QVERIFY(log);
        auto* view = window.findChild<QTableView*>(QStringLiteral("messagesView"));
        QVERIFY(view);
        QVERIFY(window.showDock(QStringLiteral("messages")));

        // A training step whose loss leaves an output out: the load's warnings.
        window.findChild<QCheckBox*>(QStringLiteral("trainCheck"))->setChecked(true);
        QSignalSpy shown(&window, &MainWindow::modelShown);
        window.openModel(twoHeads);
        QVERIFY(shown.wait(kLoadTimeoutMs));
        const int warnings = static_cast<int>(window.currentModel()->warnings.size());
        QVERIFY(warnings > 0);
        QCOMPARE(log->count(LogMessage::Severity::Warning), warnings);

        // An open that fails, and a plan that does not exist: errors.
        QSignalSpy failed(&window, &MainWindow::modelFailed);
        window.openModel(dir.filePath(QStringLiteral("missing.mlir")));
        QVERIFY(failed.wait(kLoadTimeoutMs));
        QString error;
        QVERIFY(!window.openPlan(QStringLiteral("expert:no-such-expert"), &error));
        QCOMPARE(log->count(LogMessage::Severity::Error), 2);
        QCOMPARE(window.statusBar()->currentMessage(), error);  // the newest flashes

        // Later messages do not push them out.
        window.openModel(QStringLiteral("zoo:demo"));
        QVERIFY(shown.wait(kLoadTimeoutMs));
        QCOMPARE(log->count(LogMessage::Severity::Error), 2);
        QCOMPARE(log->count(LogMessage::Severity::Warning), warnings);

        int loadWarnings = 0, openErrors = 0, planErrors = 0;
        for (int row = 0; row < log->rowCount(); ++row) {
            const LogMessage& m = log->message(row);
            QVERIFY(m.time.isValid());
            loadWarnings += m.severity == LogMessage::Severity::Warning && m.source == QLatin1String("Load");
            openErrors += m.severity == LogMessage::Severity::Error && m.source == QLatin1String("Open") &&
                          m.text.contains(QLatin1String("missing.mlir"));
            planErrors += m.severity == LogMessage::Severity::Error && m.source == QLatin1String("Plan") &&
                          m.text == error;
        }
        QCOMPARE(loadWarnings, warnings);
        QCOMPARE(openErrors, 1);
        QCOMPARE(planErrors, 1);
        QCOMPARE(view->model()->rowCount(), log->rowCount());
        QCOMPARE(log->index(0, MessageLog::SeverityColumn).data().toString(), QStringLiteral("Note"));
        QVERIFY(window.findChild<QDockWidget*>(QStringLiteral("messagesDock"))
                    ->windowTitle()
                    .contains(QLatin1String("2 errors")));
    }

    // The first names' colours are far apart (the hash of their labels gave two magentas and two light blues
    // to gpt2's names), and all are light enough for dark text.
    void nameColoursAreFarApart() {
        QVERIFY(perceptualDistance(Qt::black, Qt::white) > 99 &&
                perceptualDistance(Qt::black, Qt::white) < 101);
        QCOMPARE(perceptualDistance(QColor(0x12, 0x34, 0x56), QColor(0x12, 0x34, 0x56)), 0.0);
        constexpr std::size_t kNames = 24;
        double closest = std::numeric_limits<double>::max();
        for (std::size_t i = 0; i < kNames; ++i) {
            // Dark text on it: WCAG contrast with black at least 7 (relative luminance at least 0.3).
            const QColor c = paletteColor(i);
            const auto linear = [](double v) {
                return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
            };
            const double luminance =
                0.2126 * linear(c.redF()) + 0.7152 * linear(c.greenF()) + 0.0722 * linear(c.blueF());
            QVERIFY2(luminance >= 0.3, qPrintable(c.name()));
            for (std::size_t j = 0; j < i; ++j)
                closest = std::min(closest, perceptualDistance(paletteColor(i), paletteColor(j)));
        }
        qInfo("closest pair of the first %zu name colours: dE(OKLab) %.1f", kNames, closest);
        QVERIFY2(closest >= 8, qPrintable(QString::number(closest)));
        // Any two of the first 64 still differ at a glance.
        for (std::size_t i = 0; i < 64; ++i)
            for (std::size_t j = 0; j < i; ++j)
                QVERIFY(perceptualDistance(paletteColor(i), paletteColor(j)) >= 4);
    }

    // The measure, then the choice: a proportional preference gives way to a fixed-pitch face, whatever
    // "monospace" resolves to on this machine.
    void fixedPitchFontOnAnySetup() {
        QFont proportional = QApplication::font();
        proportional.setStyleHint(QFont::SansSerif);
        const QStringList families = QFontDatabase::families();
        const bool anyFixed = std::any_of(families.begin(), families.end(),
                                          [](const QString& f) { return isFixedPitch(QFont(f)); });
        if (!anyFixed)
            QSKIP("This machine has no fixed-pitch font at all");
        const QFont system = QFontDatabase::systemFont(QFontDatabase::FixedFont);
        qInfo("the system's fixed font resolves to %s, %s", qPrintable(QFontInfo(system).family()),
              isFixedPitch(system) ? "fixed-pitch" : "proportional");
        if (!isFixedPitch(proportional))  // a preference that is not fixed-pitch is passed over
            QVERIFY(isFixedPitch(fixedPitchFont({proportional})));
        QVERIFY(isFixedPitch(fixedPitchFont()));

        MainWindow window;
        const auto* text = window.findChild<QPlainTextEdit*>(QStringLiteral("stableHloView"));
        QVERIFY(text);
        const QFontMetricsF metrics(text->font());
        QCOMPARE(metrics.horizontalAdvance(QLatin1Char('i')), metrics.horizontalAdvance(QLatin1Char('W')));
    }

    // The search chart of the window's Search dock draws the edited plan's step time.
    void searchChartFollowsTheEditedPlan() {
        MainWindow window;
        window.show();
        QSignalSpy settled(&window, &MainWindow::settled);
        window.openModel(QStringLiteral("zoo:demo"));
        QVERIFY(settled.wait(kLoadTimeoutMs));
        const double stepTime = window.planEditor()->state()->evaluation.stepTime;
        QVERIFY(stepTime > 0);
        QCOMPARE(window.sessionDocks()->searchPanel()->chart()->reference(SearchChart::Reference::EditedPlan),
                 stepTime);
    }
};

QTEST_MAIN(TestUiSettings)
#include "tst_ui_settings.moc"
