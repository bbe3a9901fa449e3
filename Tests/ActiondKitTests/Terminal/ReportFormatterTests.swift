import ActiondDomain
import ActiondKit
import Testing

@Suite("Report formatting")
struct ReportFormatterTests {
    let columns = ["user_id", "pending", "note"]
    let rows: [[String: JSONValue]] = [
        ["user_id": .string("ana"), "pending": .number(2), "note": .string(#"says "hi", then"#)],
        ["user_id": .string("bob"), "pending": .number(12.5), "note": .null],
    ]

    @Test func csvQuotesPerRFC4180() {
        let csv = ReportFormatter.render(columns: columns, rows: rows, json: "", format: .csv)
        #expect(csv == "user_id,pending,note\r\nana,2,\"says \"\"hi\"\", then\"\r\nbob,12.5,\r\n")
        let multiline = ReportFormatter.render(columns: ["a"], rows: [["a": .string("one\ntwo")]], json: "", format: .csv)
        #expect(multiline == "a\r\n\"one\ntwo\"\r\n")
    }

    @Test func tablesAlignColumnsAndNumbersToTheRight() {
        let table = ReportFormatter.render(columns: columns, rows: rows, json: "", format: .table)
        #expect(table == """
            user_id | pending | note
            --------+---------+----------------
            ana     |       2 | says "hi", then
            bob     |    12.5 |
            (2 rows)

            """)
    }

    @Test func aTableWiderThanTheTerminalBecomesOneBlockPerRow() {
        let wide: [[String: JSONValue]] = [["user_id": .string("ana"), "pending": .number(1), "note": .string(String(repeating: "x", count: 90))]]
        let table = ReportFormatter.render(columns: columns, rows: wide, json: "", format: .table, width: 80)
        #expect(table.hasPrefix("-[ 1 ]"))
        #expect(table.contains("user_id | ana\npending | 1\nnote    | xxxx"))
        #expect(!table.contains("user_id | pending | note"), "no row of aligned columns wider than the terminal")
    }

    @Test func timesAreShortenedInTablesOnly() {
        let row: [[String: JSONValue]] = [["at": .string("2026-11-22T09:30:00.123456+00:00")]]
        #expect(ReportFormatter.render(columns: ["at"], rows: row, json: "", format: .table).contains("2026-11-22 09:30:00\n"))
        #expect(ReportFormatter.render(columns: ["at"], rows: row, json: "", format: .csv).contains("2026-11-22T09:30:00.123456+00:00"))
    }

    @Test func jsonIsPassedThrough() {
        #expect(ReportFormatter.render(columns: [], rows: [], json: #"[{"a":1}]"#, format: .json) == "[{\"a\":1}]\n")
    }
}
