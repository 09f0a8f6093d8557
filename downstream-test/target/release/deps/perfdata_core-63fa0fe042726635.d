/work/main/downstream-test/target/release/deps/perfdata_core-63fa0fe042726635.d: /work/main/perfdata-core/src/lib.rs /work/main/perfdata-core/src/abi.rs /work/main/perfdata-core/src/attr.rs /work/main/perfdata-core/src/compress.rs /work/main/perfdata-core/src/error.rs /work/main/perfdata-core/src/event.rs /work/main/perfdata-core/src/feature/mod.rs /work/main/perfdata-core/src/feature/bpf.rs /work/main/perfdata-core/src/feature/build_id.rs /work/main/perfdata-core/src/feature/clock.rs /work/main/perfdata-core/src/feature/data.rs /work/main/perfdata-core/src/feature/events.rs /work/main/perfdata-core/src/feature/features.rs /work/main/perfdata-core/src/feature/strings.rs /work/main/perfdata-core/src/feature/system.rs /work/main/perfdata-core/src/feature/topology.rs /work/main/perfdata-core/src/file.rs /work/main/perfdata-core/src/header.rs /work/main/perfdata-core/src/info.rs /work/main/perfdata-core/src/jitdump.rs /work/main/perfdata-core/src/names.rs /work/main/perfdata-core/src/process.rs /work/main/perfdata-core/src/reader.rs /work/main/perfdata-core/src/record/mod.rs /work/main/perfdata-core/src/record/kernel.rs /work/main/perfdata-core/src/record/user.rs /work/main/perfdata-core/src/records.rs /work/main/perfdata-core/src/sample.rs /work/main/perfdata-core/src/stream.rs /work/main/perfdata-core/src/tracepoint/mod.rs /work/main/perfdata-core/src/tracepoint/data.rs /work/main/perfdata-core/src/tracepoint/fields.rs /work/main/perfdata-core/src/tracepoint/format.rs /work/main/perfdata-core/src/tracepoint/print/mod.rs /work/main/perfdata-core/src/tracepoint/print/parse.rs /work/main/perfdata-core/src/tracepoint/print/printf.rs /work/main/perfdata-core/src/tracepoint/print/render.rs /work/main/perfdata-core/src/typed.rs

/work/main/downstream-test/target/release/deps/libperfdata_core-63fa0fe042726635.rmeta: /work/main/perfdata-core/src/lib.rs /work/main/perfdata-core/src/abi.rs /work/main/perfdata-core/src/attr.rs /work/main/perfdata-core/src/compress.rs /work/main/perfdata-core/src/error.rs /work/main/perfdata-core/src/event.rs /work/main/perfdata-core/src/feature/mod.rs /work/main/perfdata-core/src/feature/bpf.rs /work/main/perfdata-core/src/feature/build_id.rs /work/main/perfdata-core/src/feature/clock.rs /work/main/perfdata-core/src/feature/data.rs /work/main/perfdata-core/src/feature/events.rs /work/main/perfdata-core/src/feature/features.rs /work/main/perfdata-core/src/feature/strings.rs /work/main/perfdata-core/src/feature/system.rs /work/main/perfdata-core/src/feature/topology.rs /work/main/perfdata-core/src/file.rs /work/main/perfdata-core/src/header.rs /work/main/perfdata-core/src/info.rs /work/main/perfdata-core/src/jitdump.rs /work/main/perfdata-core/src/names.rs /work/main/perfdata-core/src/process.rs /work/main/perfdata-core/src/reader.rs /work/main/perfdata-core/src/record/mod.rs /work/main/perfdata-core/src/record/kernel.rs /work/main/perfdata-core/src/record/user.rs /work/main/perfdata-core/src/records.rs /work/main/perfdata-core/src/sample.rs /work/main/perfdata-core/src/stream.rs /work/main/perfdata-core/src/tracepoint/mod.rs /work/main/perfdata-core/src/tracepoint/data.rs /work/main/perfdata-core/src/tracepoint/fields.rs /work/main/perfdata-core/src/tracepoint/format.rs /work/main/perfdata-core/src/tracepoint/print/mod.rs /work/main/perfdata-core/src/tracepoint/print/parse.rs /work/main/perfdata-core/src/tracepoint/print/printf.rs /work/main/perfdata-core/src/tracepoint/print/render.rs /work/main/perfdata-core/src/typed.rs

/work/main/perfdata-core/src/lib.rs:
/work/main/perfdata-core/src/abi.rs:
/work/main/perfdata-core/src/attr.rs:
/work/main/perfdata-core/src/compress.rs:
/work/main/perfdata-core/src/error.rs:
/work/main/perfdata-core/src/event.rs:
/work/main/perfdata-core/src/feature/mod.rs:
/work/main/perfdata-core/src/feature/bpf.rs:
/work/main/perfdata-core/src/feature/build_id.rs:
/work/main/perfdata-core/src/feature/clock.rs:
/work/main/perfdata-core/src/feature/data.rs:
/work/main/perfdata-core/src/feature/events.rs:
/work/main/perfdata-core/src/feature/features.rs:
/work/main/perfdata-core/src/feature/strings.rs:
/work/main/perfdata-core/src/feature/system.rs:
/work/main/perfdata-core/src/feature/topology.rs:
/work/main/perfdata-core/src/file.rs:
/work/main/perfdata-core/src/header.rs:
/work/main/perfdata-core/src/info.rs:
/work/main/perfdata-core/src/jitdump.rs:
/work/main/perfdata-core/src/names.rs:
/work/main/perfdata-core/src/process.rs:
/work/main/perfdata-core/src/reader.rs:
/work/main/perfdata-core/src/record/mod.rs:
/work/main/perfdata-core/src/record/kernel.rs:
/work/main/perfdata-core/src/record/user.rs:
/work/main/perfdata-core/src/records.rs:
/work/main/perfdata-core/src/sample.rs:
/work/main/perfdata-core/src/stream.rs:
/work/main/perfdata-core/src/tracepoint/mod.rs:
/work/main/perfdata-core/src/tracepoint/data.rs:
/work/main/perfdata-core/src/tracepoint/fields.rs:
/work/main/perfdata-core/src/tracepoint/format.rs:
/work/main/perfdata-core/src/tracepoint/print/mod.rs:
/work/main/perfdata-core/src/tracepoint/print/parse.rs:
/work/main/perfdata-core/src/tracepoint/print/printf.rs:
/work/main/perfdata-core/src/tracepoint/print/render.rs:
/work/main/perfdata-core/src/typed.rs:
