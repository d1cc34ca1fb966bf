// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Round trips preserve cost (issue 19 part 8), on every zoo family at small sizes, forward and training step:
// export a plan (Shardy and GSPMD, constraints none, key and all), import the text, evaluate its reference
// plan, and get the plan's own step time, collectives and peak memory back.
#include <QtTest>

#include "round_trip.h"

using namespace shardscope;

class TestRoundTrip : public QObject {
    Q_OBJECT

private slots:
    void zooFamilies() {
        const std::vector<std::string> models = {
            "zoo:mlp:layers=2,d_model=64,d_ff=128,batch=16,bias=true",
            "zoo:gpt:layers=2,d_model=64,heads=4,seq=32,batch=8,vocab=256",
            "zoo:llama:layers=2,d_model=64,heads=4,kv_heads=2,d_ff=128,seq=32,batch=4,vocab=256",
            "zoo:moe:layers=2,d_model=64,heads=4,kv_heads=2,d_ff=64,seq=32,batch=4,vocab=256",
            "zoo:vit:image=32,patch=8,channels=3,layers=2,d_model=64,heads=4,d_ff=128,classes=10,batch=8",
            "zoo:unet:image=32,channels=1,classes=2,base=8,depth=2,batch=4",
        };
        std::vector<testing::RoundTripRow> rows;
        for (const auto& model : models)
            for (const bool train : {false, true}) {
                testing::RoundTripCase c{model, train, "data=2,model=2", {"dp", "fsdp", "fsdp-tp"}, true};
                const auto some = testing::roundTrips(c);
                rows.insert(rows.end(), some.begin(), some.end());
            }
        QVERIFY(rows.size() >= models.size() * 2 * 2 * 6);
        QVERIFY2(testing::printRoundTrips(rows),
                 "some round trips do not give the plan's cost back (table above)");
    }
};

QTEST_GUILESS_MAIN(TestRoundTrip)
#include "tst_round_trip.moc"
