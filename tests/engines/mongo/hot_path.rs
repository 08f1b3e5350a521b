//! The mongo client's hot path makes no Rust allocation per operation once its buffers
//! have grown: every `DocClient` and capability operation the workloads use, against SecantusDB. Only
//! this thread's allocations are counted, so the suite's other tests running beside it
//! do not disturb the count (the counting allocator serves the whole test binary).

use super::stand_in::StandIn;
use dbrace::engine::mongo::client::{MongoClient, WriteConcern};
use dbrace::engine::mongo::url::Endpoint;
use dbrace::engine::{DocClient, DocIncr, DocIncrements, DocRanges, DocValue, NewDoc};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let _ = ALLOCS.try_with(|a| a.set(a.get() + 1));
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, size: usize) -> *mut u8 {
        let _ = ALLOCS.try_with(|a| a.set(a.get() + 1));
        unsafe { System.realloc(p, l, size) }
    }
}

#[global_allocator]
static A: Counting = Counting;

fn allocs() -> u64 {
    ALLOCS.with(Cell::get)
}

/// Allocations of `n` rounds of every operation, after one round that grows the buffers.
fn rounds(c: &mut MongoClient, first: u64, n: u64) -> u64 {
    const FIELD: &str =
        "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789";
    let fields: [(&str, DocValue); 3] =
        [("field0", DocValue::Text(FIELD)), ("field1", DocValue::Text(FIELD)), ("n", DocValue::Int(7))];
    let ids = ["m::1h::1700000000", "m::1h::1700003600", "m::1h::1700007200", "m::1d::1699920000"];
    let round = |c: &mut MongoClient, i: u64| {
        c.insert("hot", &[NewDoc { id: DocValue::Int(i as i64), fields: &fields }]).unwrap();
        assert!(c.find_id("rec", "user5").unwrap());
        assert!(c.set("rec", "user5", "field1", DocValue::Text(FIELD)).unwrap());
        assert_eq!(c.scan("rec", "user1", 5).unwrap(), 5);
        let incs: [DocIncr; 8] =
            std::array::from_fn(|j| DocIncr { id: ids[j / 2], field: ["count", "d.sum"][j % 2], by: 2 });
        c.inc("ctr", &incs).unwrap();
        // One update per document, as `--counters-writes per-bucket` sends them.
        for one in incs.chunks(2) {
            c.inc("ctr", one).unwrap();
        }
        let mut seen = 0;
        assert_eq!(c.range("ctr", "m::1h::", "m::1h::9", &mut |_, _, _| seen += 1).unwrap(), 3);
        assert_eq!(seen, 6);
    };
    round(c, first);
    let before = allocs();
    for i in 1..=n {
        round(c, first + i);
    }
    allocs() - before
}

#[test]
fn the_mongo_client_allocates_nothing_per_operation() {
    let s = StandIn::start();
    let ep = Endpoint::parse(&s.url()).unwrap();
    let mut c = MongoClient::connect(&ep, "dbrace_hot", WriteConcern { journal: false }).unwrap();
    c.drop_collection("rec").unwrap();
    let recs: Vec<String> = (0..10).map(|i| format!("user{i}")).collect();
    let field = [("field0", DocValue::Text("x")), ("field1", DocValue::Text("y"))];
    let docs: Vec<NewDoc> = recs.iter().map(|r| NewDoc { id: DocValue::Text(r), fields: &field }).collect();
    c.insert("rec", &docs).unwrap();
    let few = rounds(&mut c, 0, 20);
    let many = rounds(&mut c, 1000, 220);
    assert_eq!(many, few, "{} allocations for 200 more rounds of every operation", many - few);
    c.drop_database().unwrap();
}
