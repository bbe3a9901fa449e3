@testable import ActiondPostgres
import Testing

@Suite("SQL statement splitter")
struct SQLStatementSplitterTests {
    @Test func splitsAtTopLevelSemicolonsOnly() {
        let sql = """
            -- a comment; with a semicolon
            create table t (a text default 'x;y', "we;ird" int);
            /* block; /* nested; */ still comment; */
            create function f() returns int language plpgsql as $$
            begin
                return 1; -- inside the body
            end
            $$;
            create function g() returns text language sql as $body$ select 'a;b' $body$;
            select $1::text;
            select 'it''s; fine';
            """
        let statements = SQLStatementSplitter.split(sql)
        #expect(statements.count == 5)
        #expect(statements[0].hasPrefix("-- a comment; with a semicolon\ncreate table t"))
        #expect(statements[1].hasPrefix("/* block; /* nested; */ still comment; */\ncreate function f()"))
        #expect(statements[1].hasSuffix("end\n$$"))
        #expect(statements[2] == "create function g() returns text language sql as $body$ select 'a;b' $body$")
        #expect(statements[3] == "select $1::text")
        #expect(statements[4] == "select 'it''s; fine'")
    }

    @Test func dropsCommentOnlyAndEmptyPieces() {
        #expect(SQLStatementSplitter.split("-- only a comment\n;;  ;\n/* x */").isEmpty)
        #expect(SQLStatementSplitter.split("select 1") == ["select 1"])
    }
}
