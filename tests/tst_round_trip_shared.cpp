// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Round trips preserve cost (issue 19 part 8) on every shared model (../shared/models), forward and training
// step: the plan of the first expert that applies (fsdp, else dp) exported (Shardy and GSPMD, constraints
// none, key and all), imported again and its reference plan evaluated gives the plan's own step time,
// collectives and peak memory back.
#include <QDir>
#include <QtTest>

#include "round_trip.h"
#include "test_paths.h"

using namespace shardscope;

class TestRoundTripShared : public QObject {
    Q_OBJECT

private slots:
    void sharedModels() {
        const QString root = shardscope::testing::sharedDir() + QStringLiteral("/models");
        if (!QFileInfo::exists(root))
            QSKIP("../shared/models is absent (a user's clone has no ../shared)");
        std::vector<testing::RoundTripRow> rows;
        int models = 0;
        for (const QString& folder : {QStringLiteral("stablehlo"), QStringLiteral("onnx")}) {
            const QDir dir(root + "/" + folder);
            for (const QString& file : dir.entryList({"*.mlir", "*.onnx"}, QDir::Files, QDir::Name)) {
                for (const bool train : {false, true}) {
                    testing::RoundTripCase c{
                        dir.filePath(file).toStdString(), train, "data=4,model=2", {"fsdp", "dp"}, false};
                    const auto some = testing::roundTrips(c);
                    rows.insert(rows.end(), some.begin(), some.end());
                }
                ++models;
            }
        }
        QVERIFY(models > 0);
        QVERIFY(rows.size() >= static_cast<std::size_t>(models) * 2 * 6);
        QVERIFY2(testing::printRoundTrips(rows),
                 "some round trips do not give the plan's cost back (table above)");
    }
};

QTEST_GUILESS_MAIN(TestRoundTripShared)
#include "tst_round_trip_shared.moc"
