import ActiondJSON
import Testing

@Suite("JSON paths")
struct JSONPathTests {
    @Test func printsKeysAndIndexes() {
        let path = JSONPath.root.appending("categories").appending(index: 2).appending("actions").appending(index: 0)
        #expect(path.description == "$.categories[2].actions[0]")
        #expect(JSONPath.root.appending("a b").description == #"$["a b"]"#)
        #expect(JSONPath.root.appending("").description == #"$[""]"#)
    }

    @Test func ordersByDocumentPosition() {
        let a = JSONPath.root.appending("categories").appending(index: 2)
        let b = JSONPath.root.appending("categories").appending(index: 10)
        #expect(a < b)
        #expect(a < a.appending("identifier"))
        #expect(a.appending("identifier").isInside(a))
        #expect(!a.isInside(a.appending("identifier")))
    }
}
