// Tests of the patch series in patches/ (each patch's header names its tests): each starts the
// embedded FerretDB (as main.go does) on a fresh SQLite folder and talks to it with the MongoDB Go
// driver.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// startFerretDB runs FerretDB with the SQLite settings of deploy/local/lib.sh and returns a database.
func startFerretDB(t *testing.T) *mongo.Database {
	t.Helper()

	return startFerretDBWith(t, t.TempDir(), "_pragma=busy_timeout(60000)&_pragma=synchronous(normal)")
}

// startFerretDBWith runs FerretDB on the SQLite folder dir with the given URL query and returns a database.
func startFerretDBWith(t *testing.T, dir, sqliteQuery string) *mongo.Database {
	t.Helper()

	ctx, cancel := context.WithCancel(context.Background())
	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: "127.0.0.1:0"},
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
		Handler:   "sqlite",
		SQLiteURL: "file:" + dir + "/?" + sqliteQuery,
	})
	if err != nil {
		t.Fatal(err)
	}

	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = f.Run(ctx)
	}()

	client, err := mongo.Connect(ctx, options.Client().ApplyURI(f.MongoDBURI()).SetMaxPoolSize(64))
	if err != nil {
		t.Fatal(err)
	}

	t.Cleanup(func() {
		_ = client.Disconnect(context.Background())
		cancel()
		<-done
	})

	return client.Database("test")
}

// runConcurrently runs f n times at once and returns the errors.
func runConcurrently(n int, f func(i int) error) []error {
	var wg sync.WaitGroup
	errs := make([]error, n)

	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f(i)
		}()
	}

	wg.Wait()

	return errs
}

func noErrors(t *testing.T, errs []error) {
	t.Helper()

	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// explain returns FerretDB's explain output of a find command.
func explain(t *testing.T, db *mongo.Database, find bson.D) bson.M {
	t.Helper()

	var res bson.M
	if err := db.RunCommand(context.Background(), bson.D{{Key: "explain", Value: find}}).Decode(&res); err != nil {
		t.Fatal(err)
	}

	return res
}

// plan returns the SQLite query plan lines of an explain output, one string.
func plan(res bson.M) string {
	var lines []string
	for _, l := range res["queryPlanner"].(bson.M)["Plan"].(bson.A) {
		lines = append(lines, l.(string))
	}

	return strings.Join(lines, "\n")
}

func TestConcurrentIncIsAtomic(t *testing.T) {
	ctx := context.Background()
	c := startFerretDB(t).Collection("counters")

	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: "c"}, {Key: "n", Value: 0}}); err != nil {
		t.Fatal(err)
	}

	noErrors(t, runConcurrently(200, func(int) error {
		_, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: "c"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}})
		return err
	}))

	var doc struct{ N int }
	if err := c.FindOne(ctx, bson.D{{Key: "_id", Value: "c"}}).Decode(&doc); err != nil {
		t.Fatal(err)
	}

	if doc.N != 200 {
		t.Fatalf("200 concurrent $inc of 1 left %d", doc.N)
	}
}

// Writers to different collections of one database share one SQLite write lock; they queue for it
// in Go, so SQLite's busy handler (which sleeps 1, 2, 5, 10… ms) never runs. With busy_timeout(0)
// any two writes reaching SQLite at once would fail with SQLITE_BUSY instead of waiting.
func TestWritersToOneDatabaseNeverMeetSQLiteBusy(t *testing.T) {
	ctx := context.Background()
	db := startFerretDBWith(t, t.TempDir(), "_pragma=busy_timeout(0)&_pragma=synchronous(normal)")

	const collections, writers = 8, 400
	for i := range collections {
		c := db.Collection(fmt.Sprintf("c%d", i))
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: "n"}, {Key: "n", Value: 0}}); err != nil {
			t.Fatal(err)
		}
	}

	noErrors(t, runConcurrently(writers, func(i int) error {
		c := db.Collection(fmt.Sprintf("c%d", i%collections))
		switch i % 4 {
		case 0:
			_, err := c.InsertOne(ctx, bson.D{{Key: "i", Value: i}})
			return err
		case 1:
			_, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: "n"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}})
			return err
		case 2:
			return c.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: "n"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}).Err()
		default:
			_, err := c.DeleteMany(ctx, bson.D{{Key: "i", Value: i - 3}})
			return err
		}
	}))

	total := 0
	for i := range collections {
		var doc struct{ N int }
		if err := db.Collection(fmt.Sprintf("c%d", i)).FindOne(ctx, bson.D{{Key: "_id", Value: "n"}}).Decode(&doc); err != nil {
			t.Fatal(err)
		}
		total += doc.N
	}

	if total != writers/2 {
		t.Fatalf("%d concurrent $inc of 1 left %d", writers/2, total)
	}
}

// SQLite's automatic checkpoint is off (it would run inside a COMMIT, holding the writer turn during
// its fsyncs); the WAL is still copied into the database file, by a checkpoint started beside the
// writers every fsql.CheckpointEvery write transactions.
func TestWALIsCheckpointedOutsideCommits(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c := startFerretDBWith(t, dir, "_pragma=busy_timeout(60000)&_pragma=synchronous(normal)").Collection("c")

	pad := strings.Repeat("x", 1000)
	for i := range 600 {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "i", Value: i}, {Key: "pad", Value: pad}}); err != nil {
			t.Fatal(err)
		}
	}

	// 600 documents of 1 kB: the database file holds more than 256 kB once a checkpoint has run
	file := filepath.Join(dir, "test.sqlite")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		fi, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}

		if fi.Size() > 256<<10 {
			return
		}

		if time.Now().After(deadline) {
			t.Fatalf("%s is still %d bytes after 600 inserts: the WAL was never checkpointed", file, fi.Size())
		}
	}
}

func TestGuardedFindOneAndUpdateNeverOverspends(t *testing.T) {
	ctx := context.Background()
	c := startFerretDB(t).Collection("wallets")
	id := primitive.NewObjectID()

	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "balance", Value: 100}}); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	charged := 0

	noErrors(t, runConcurrently(60, func(int) error {
		err := c.FindOneAndUpdate(ctx,
			bson.D{{Key: "_id", Value: id}, {Key: "balance", Value: bson.D{{Key: "$gte", Value: 7}}}},
			bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: -7}}}},
		).Err()
		if errors.Is(err, mongo.ErrNoDocuments) {
			return nil
		}
		if err == nil {
			mu.Lock()
			charged++
			mu.Unlock()
		}
		return err
	}))

	var doc struct{ Balance int }
	if err := c.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&doc); err != nil {
		t.Fatal(err)
	}

	if charged != 14 || doc.Balance != 2 {
		t.Fatalf("100 coins, 60 charges of 7 guarded by balance >= 7: %d charged, balance %d (want 14, 2)", charged, doc.Balance)
	}
}

func TestConcurrentUpsertsOfOneIDMakeOneDocument(t *testing.T) {
	ctx := context.Background()
	c := startFerretDB(t).Collection("upserts")

	// the collection exists before the race, as in the app
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: "other"}}); err != nil {
		t.Fatal(err)
	}

	noErrors(t, runConcurrently(50, func(int) error {
		_, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: "k"}},
			bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}, options.Update().SetUpsert(true))
		return err
	}))

	var doc struct{ N int }
	if err := c.FindOne(ctx, bson.D{{Key: "_id", Value: "k"}}).Decode(&doc); err != nil {
		t.Fatal(err)
	}

	if doc.N != 50 {
		t.Fatalf("50 concurrent upserts with $inc 1 left n = %d", doc.N)
	}

	// the unique _id index is still enforced
	_, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: "k"}})
	if !mongo.IsDuplicateKeyError(err) {
		t.Fatalf("inserting a second _id k: %v, want a duplicate key error", err)
	}
}

func TestIDEqualityUsesIndex(t *testing.T) {
	ctx := context.Background()
	db := startFerretDB(t)
	id := primitive.NewObjectID()

	if _, err := db.Collection("docs").InsertOne(ctx, bson.D{{Key: "_id", Value: id}}); err != nil {
		t.Fatal(err)
	}

	for _, filter := range []bson.D{
		{{Key: "_id", Value: id}},
		{{Key: "_id", Value: "a string id"}},
		{{Key: "_id", Value: id}, {Key: "state", Value: "x"}},
		{{Key: "_id", Value: bson.D{{Key: "$in", Value: bson.A{id, primitive.NewObjectID()}}}}},
	} {
		res := explain(t, db, bson.D{{Key: "find", Value: "docs"}, {Key: "filter", Value: filter}})
		if p := plan(res); !strings.Contains(p, "USING INDEX docs_") || strings.Contains(p, "SCAN") {
			t.Errorf("find %v: plan %q does not search the _id index", filter, p)
		}
	}
}

func TestIndexedFieldEqualityRangeSortUseIndex(t *testing.T) {
	ctx := context.Background()
	db := startFerretDB(t)
	c := db.Collection("audit")

	if _, err := c.Indexes().CreateMany(ctx, []mongo.IndexModel{
		{Keys: bson.D{{Key: "category", Value: 1}, {Key: "_id", Value: -1}}},
		{Keys: bson.D{{Key: "state", Value: 1}, {Key: "createdAt", Value: 1}}},
	}); err != nil {
		t.Fatal(err)
	}

	if _, err := c.InsertOne(ctx, bson.D{{Key: "category", Value: "x"}, {Key: "state", Value: "done"}}); err != nil {
		t.Fatal(err)
	}

	id := primitive.NewObjectID()
	objectIDs := bson.D{{Key: "$type", Value: "objectId"}}
	below := bson.D{{Key: "$lt", Value: id}}
	newest := bson.D{{Key: "_id", Value: -1}}

	for _, tc := range []struct {
		name   string
		filter bson.D
		sort   bson.D
		index  string // the index SQLite must search
		sorted bool   // the order comes from the index
	}{
		{"keyset page", bson.D{{Key: "_id", Value: below}}, newest, "__id_ (", true},
		{"first page", bson.D{{Key: "_id", Value: objectIDs}}, newest, "__id_ (", true},
		{"keyset page of a category", bson.D{{Key: "category", Value: "x"}, {Key: "_id", Value: below}}, newest, "category_1__id_-1", true},
		{"first page of a category", bson.D{{Key: "category", Value: "x"}, {Key: "_id", Value: objectIDs}}, newest, "category_1__id_-1", true},
		{"ascending range", bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: id}}}}, bson.D{{Key: "_id", Value: 1}}, "__id_ (", true},
		{"equality on an indexed field", bson.D{{Key: "state", Value: "pending"}, {Key: "createdAt", Value: bson.D{{Key: "$lte", Value: time.Now()}}}}, nil, "state_1_createdAt_1", false},
	} {
		find := bson.D{{Key: "find", Value: "audit"}, {Key: "filter", Value: tc.filter}, {Key: "limit", Value: 50}}
		if tc.sort != nil {
			find = append(find, bson.E{Key: "sort", Value: tc.sort})
		}

		res := explain(t, db, find)
		p := plan(res)

		if !strings.Contains(p, "USING INDEX audit_") || !strings.Contains(p, tc.index) || strings.Contains(p, "SCAN") {
			t.Errorf("%s: plan %q does not search index %s", tc.name, p, tc.index)
		}

		if res["filterPushdown"] != true {
			t.Errorf("%s: filterPushdown %v", tc.name, res["filterPushdown"])
		}

		if tc.sorted && (res["sortPushdown"] != true || strings.Contains(p, "TEMP B-TREE")) {
			t.Errorf("%s: sortPushdown %v, plan %q: the order does not come from the index", tc.name, res["sortPushdown"], p)
		}
	}
}

// The pushdown only narrows what SQLite returns: answers stay those of MongoDB's rules, which
// FerretDB applies in Go, for _id of several types, arrays, and numbers of several types.
func TestPushdownKeepsMongoDBAnswers(t *testing.T) {
	ctx := context.Background()
	c := startFerretDB(t).Collection("mixed")

	if _, err := c.Indexes().CreateMany(ctx, []mongo.IndexModel{
		{Keys: bson.D{{Key: "category", Value: 1}, {Key: "_id", Value: -1}}},
		{Keys: bson.D{{Key: "score", Value: 1}}},
	}); err != nil {
		t.Fatal(err)
	}

	var oids []primitive.ObjectID
	var docs []any

	for i := range 30 {
		id := primitive.NewObjectIDFromTimestamp(time.Unix(int64(1_700_000_000+i), 0))
		oids = append(oids, id)
		docs = append(docs, bson.D{{Key: "_id", Value: id}, {Key: "category", Value: []string{"x", "y", "z"}[i%3]}})
	}

	// look-alikes of ObjectIds and of "x", and numbers of three types (an ObjectId and a string of its
	// hex digits collide in FerretDB's _id index, patched or not, so the string is one digit longer)
	lookAlike := oids[10].Hex() + "0"
	docs = append(docs,
		bson.D{{Key: "_id", Value: lookAlike}, {Key: "category", Value: "x"}},
		bson.D{{Key: "_id", Value: "0"}, {Key: "category", Value: "x"}},
		bson.D{{Key: "_id", Value: int32(7)}, {Key: "category", Value: bson.A{"y", "x"}}, {Key: "score", Value: int32(5)}},
		bson.D{{Key: "_id", Value: 7.5}, {Key: "category", Value: "x "}, {Key: "score", Value: 5.0}},
		bson.D{{Key: "_id", Value: int64(8)}, {Key: "score", Value: int64(5)}},
		bson.D{{Key: "_id", Value: bson.D{{Key: "a", Value: 1}}}, {Key: "score", Value: 5.5}},
	)

	if _, err := c.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}

	ids := func(filter bson.D, opts *options.FindOptions) string {
		t.Helper()

		if filter == nil {
			filter = bson.D{}
		}

		cur, err := c.Find(ctx, filter, opts)
		if err != nil {
			t.Fatal(err)
		}

		var res []bson.M
		if err := cur.All(ctx, &res); err != nil {
			t.Fatal(err)
		}

		out := make([]string, len(res))
		for i, d := range res {
			out[i] = fmt.Sprint(d["_id"])
		}

		return strings.Join(out, " ")
	}

	oidList := func(indexes ...int) string {
		out := make([]string, len(indexes))
		for i, n := range indexes {
			out[i] = fmt.Sprint(oids[n])
		}

		return strings.Join(out, " ")
	}

	newest := options.Find().SetSort(bson.D{{Key: "_id", Value: -1}}).SetLimit(4)

	for _, tc := range []struct {
		name   string
		filter bson.D
		opts   *options.FindOptions
		want   string
	}{
		{"ObjectId below, newest first", bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: oids[11]}}}}, newest, oidList(10, 9, 8, 7)},
		{"ObjectIds only, newest first", bson.D{{Key: "_id", Value: bson.D{{Key: "$type", Value: "objectId"}}}}, newest, oidList(29, 28, 27, 26)},
		{"category x below, newest first", bson.D{{Key: "category", Value: "x"}, {Key: "_id", Value: bson.D{{Key: "$lt", Value: oids[13]}}}}, newest, oidList(12, 9, 6, 3)},
		{"skip within the page", bson.D{{Key: "_id", Value: bson.D{{Key: "$lte", Value: oids[5]}}}}, options.Find().SetSort(bson.D{{Key: "_id", Value: -1}}).SetSkip(2).SetLimit(2), oidList(3, 2)},
		{"ascending from an ObjectId", bson.D{{Key: "_id", Value: bson.D{{Key: "$gt", Value: oids[26]}}}}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}), oidList(27, 28, 29)},
		{"string id that looks like an ObjectId", bson.D{{Key: "_id", Value: lookAlike}}, nil, lookAlike},
		{"ObjectId next to a look-alike string id", bson.D{{Key: "_id", Value: oids[10]}}, nil, fmt.Sprint(oids[10])},
		{"$in of both", bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: bson.A{oids[1], "0"}}}}}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}), "0 " + oidList(1)},
		{"array holding x, string x", bson.D{{Key: "category", Value: "x"}}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(3), "7 0 " + lookAlike},
		{"category $in", bson.D{{Key: "category", Value: bson.D{{Key: "$in", Value: bson.A{"x "}}}}}, nil, "7.5"},
		{"int, long and double 5", bson.D{{Key: "score", Value: 5}}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}), "7 7.5 8"},
		{"any type, newest first", nil, options.Find().SetSort(bson.D{{Key: "_id", Value: -1}}).SetLimit(3), oidList(29, 28, 27)},
	} {
		if got := ids(tc.filter, tc.opts); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}

	// every document sorted by _id in MongoDB's order of types: numbers, strings, objects, ObjectIds
	all := strings.Fields(ids(nil, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}})))
	if len(all) != 36 || all[0] != "7" || all[3] != "0" || !sort.StringsAreSorted(all[6:]) {
		t.Errorf("all by _id: %v", all)
	}
}

// One update command of many statements (a bulkWrite of updateOne, as a group commit or the audit
// upgrade sends) releases each statement's query before the next: a deferred close per statement
// held one of SQLite's 100 pooled connections each, and a command of 150 statements hung for ever.
func TestBulkUpdateOfManyStatementsFinishes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	c := startFerretDB(t).Collection("bulk")

	const n = 150
	docs := make([]any, n)
	models := make([]mongo.WriteModel, n)
	for i := range n {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "n", Value: 0}}
		models[i] = mongo.NewUpdateOneModel().
			SetFilter(bson.D{{Key: "_id", Value: i}}).
			SetUpdate(bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}})
	}

	if _, err := c.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}

	res, err := c.BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false))
	if err != nil {
		t.Fatalf("bulk update of %d statements: %v", n, err)
	}

	if res.ModifiedCount != n {
		t.Fatalf("bulk update modified %d of %d", res.ModifiedCount, n)
	}
}

// A bulk of updateOne by distinct string or ObjectId _ids (as GroupUpdate sends) reads its documents
// in one query and writes them in one transaction; each statement still answers as if run alone:
// its guard is checked, a missing document matches nothing, and the counts add up.
func TestBulkUpdateByIDsKeepsEachStatementsAnswer(t *testing.T) {
	ctx := context.Background()
	c := startFerretDB(t).Collection("entries")

	oid := primitive.NewObjectID()
	docs := []any{
		bson.D{{Key: "_id", Value: "a"}, {Key: "state", Value: "pending"}, {Key: "n", Value: 1}},
		bson.D{{Key: "_id", Value: "b"}, {Key: "state", Value: "applied"}, {Key: "n", Value: 1}},
		bson.D{{Key: "_id", Value: "c"}, {Key: "state", Value: "pending"}, {Key: "n", Value: 1}, {Key: "hold", Value: "open"}},
		bson.D{{Key: "_id", Value: oid}, {Key: "state", Value: "pending"}, {Key: "n", Value: 1}},
	}
	if _, err := c.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}

	update := func(id any, guard string, set bson.D) mongo.WriteModel {
		filter := bson.D{{Key: "_id", Value: id}}
		if guard != "" {
			filter = append(filter, bson.E{Key: "state", Value: guard})
		}

		return mongo.NewUpdateOneModel().SetFilter(filter).SetUpdate(set)
	}

	res, err := c.BulkWrite(ctx, []mongo.WriteModel{
		update("a", "pending", bson.D{{Key: "$set", Value: bson.D{{Key: "state", Value: "applied"}}}, {Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}),
		update("b", "pending", bson.D{{Key: "$set", Value: bson.D{{Key: "state", Value: "rejected"}}}}), // guard fails
		update("missing", "", bson.D{{Key: "$set", Value: bson.D{{Key: "state", Value: "applied"}}}}),
		update("c", "", bson.D{{Key: "$set", Value: bson.D{{Key: "settlement", Value: "captured"}}}, {Key: "$unset", Value: bson.D{{Key: "hold", Value: 1}}}}),
		update(oid, "pending", bson.D{{Key: "$set", Value: bson.D{{Key: "state", Value: "applied"}}}}),
	})
	if err != nil {
		t.Fatal(err)
	}

	if res.MatchedCount != 3 || res.ModifiedCount != 3 {
		t.Fatalf("matched %d, modified %d; want 3 and 3", res.MatchedCount, res.ModifiedCount)
	}

	want := map[any]bson.M{
		"a": {"state": "applied", "n": int32(2)},
		"b": {"state": "applied", "n": int32(1)},
		"c": {"state": "pending", "n": int32(1), "settlement": "captured"},
		oid: {"state": "applied", "n": int32(1)},
	}
	for id, fields := range want {
		var got bson.M
		if err := c.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&got); err != nil {
			t.Fatal(err)
		}

		delete(got, "_id")

		if fmt.Sprint(got) != fmt.Sprint(fields) {
			t.Errorf("%v: got %v, want %v", id, got, fields)
		}
	}

	if n, _ := c.CountDocuments(ctx, bson.D{{Key: "_id", Value: "missing"}}); n != 0 {
		t.Errorf("an update without upsert created a document")
	}
}

// Two statements of one bulk on the same _id run one after the other: the second sees the first.
func TestBulkUpdateOfOneIDTwiceAppliesBoth(t *testing.T) {
	ctx := context.Background()
	c := startFerretDB(t).Collection("twice")

	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: "x"}, {Key: "state", Value: "pending"}}); err != nil {
		t.Fatal(err)
	}

	res, err := c.BulkWrite(ctx, []mongo.WriteModel{
		mongo.NewUpdateOneModel().SetFilter(bson.D{{Key: "_id", Value: "x"}, {Key: "state", Value: "pending"}}).
			SetUpdate(bson.D{{Key: "$set", Value: bson.D{{Key: "state", Value: "applied"}}}}),
		mongo.NewUpdateOneModel().SetFilter(bson.D{{Key: "_id", Value: "x"}, {Key: "state", Value: "applied"}}).
			SetUpdate(bson.D{{Key: "$set", Value: bson.D{{Key: "settlement", Value: "refunded"}}}}),
	})
	if err != nil {
		t.Fatal(err)
	}

	if res.ModifiedCount != 2 {
		t.Fatalf("modified %d of 2", res.ModifiedCount)
	}
}

// Bulks by _id and single updates of the same documents, all at once, lose no update: the bulk
// holds the collection from its read to its write like any other update.
func TestConcurrentBulkUpdatesByIDAreAtomic(t *testing.T) {
	ctx := context.Background()
	c := startFerretDB(t).Collection("counted")

	const docs, workers = 10, 40
	inc := bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}
	models := make([]mongo.WriteModel, docs)
	for i := range docs {
		id := fmt.Sprintf("d%d", i)
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "n", Value: 0}}); err != nil {
			t.Fatal(err)
		}

		models[i] = mongo.NewUpdateOneModel().SetFilter(bson.D{{Key: "_id", Value: id}}).SetUpdate(inc)
	}

	noErrors(t, runConcurrently(workers, func(i int) error {
		if i%2 == 0 {
			_, err := c.BulkWrite(ctx, models)
			return err
		}

		for d := range docs {
			if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: fmt.Sprintf("d%d", d)}}, inc); err != nil {
				return err
			}
		}

		return nil
	}))

	cur, err := c.Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}

	var all []struct {
		ID string `bson:"_id"`
		N  int
	}
	if err := cur.All(ctx, &all); err != nil {
		t.Fatal(err)
	}

	for _, d := range all {
		if d.N != workers {
			t.Errorf("%s: %d increments of %d", d.ID, d.N, workers)
		}
	}
}
