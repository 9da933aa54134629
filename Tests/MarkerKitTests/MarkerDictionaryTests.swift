import Testing
@testable import MarkerKit

@Suite struct MarkerDictionaryTests {
    let dictionary = MarkerDictionary.arucoOriginal

    @Test(arguments: MarkerDictionary.Name.allCases)
    func everyIDMatchesOpenCVBitForBit(_ name: MarkerDictionary.Name) throws {
        let dictionary = MarkerDictionary.named(name)
        let openCV = OpenCVDictionary(name)
        let info = try openCV.info()
        #expect(info.count == dictionary.count)
        #expect(info.markerSize == dictionary.markerSize)
        #expect(info.maxCorrectionBits == dictionary.maxCorrectionBits)
        for id in 0..<dictionary.count {
            let ours = dictionary.bits(for: id)
            let theirs = try openCV.bits(for: id)
            #expect(ours == theirs, "\(name) ID \(id): ours \(ours), OpenCV \(theirs)")
        }
    }

    @Test func correctionIsOpenCVsDefault() {
        #expect(MarkerDictionary.arucoOriginal.correctableBits == 0)
        for d in [MarkerDictionary.dict5x5_50, .dict5x5_100, .dict5x5_250, .dict5x5_1000] { #expect(d.correctableBits == 1) }
        // int(maxCorrectionBits x 0.6), OpenCV's errorCorrectionRate: 4x4 1 -> 0, 6x6 6/5/5/4 -> 3/3/3/2, 7x7 9/8/8/6 -> 5/4/4/3.
        let expected: [MarkerDictionary.Name: Int] = [.dict4x4_50: 0, .dict4x4_1000: 0, .dict6x6_50: 3, .dict6x6_250: 3, .dict6x6_1000: 2,
                                                      .dict7x7_50: 5, .dict7x7_100: 4, .dict7x7_1000: 3, .aprilTag16h5: 0, .aprilTag36h11: 0]
        for (name, bits) in expected { #expect(MarkerDictionary.named(name).correctableBits == bits, "\(name)") }
    }

    /// The 5x5 dictionaries correct one wrong cell in any turn, and refuse two.
    @Test(arguments: [MarkerDictionary.Name.dict5x5_50, .dict5x5_1000])
    func fiveByFiveCorrectsOneCell(_ name: MarkerDictionary.Name) {
        let dictionary = MarkerDictionary.named(name)
        var corrected = 0, refusedTwo = 0, wrongTwo = 0, trials = 0
        for id in stride(from: 0, to: dictionary.count, by: 7) {
            for turn in 0..<4 {
                let turned = dictionary.bits(for: id).rotatedClockwise(turn)
                for cell in 0..<25 {
                    let one = MarkerBits(raw: turned.raw ^ (1 << UInt64(cell)))
                    if dictionary.decode(one) == .init(id: id, rotation: turn) { corrected += 1 }
                    let two = MarkerBits(raw: one.raw ^ (1 << UInt64((cell + 11) % 25)))
                    trials += 1
                    if let read = dictionary.decode(two) { if read.id != id { wrongTwo += 1 } } else { refusedTwo += 1 }
                }
            }
        }
        #expect(corrected == trials, "every one-cell error is corrected")
        #expect(refusedTwo == trials, "two wrong cells are never read (wrong IDs: \(wrongTwo))")
    }

    @Test func namesAsUsersTypeThem() throws {
        #expect(MarkerDictionary.Name(parsing: "DICT_5X5_100") == .dict5x5_100)
        #expect(MarkerDictionary.Name(parsing: "5x5_100") == .dict5x5_100)
        #expect(MarkerDictionary.Name(parsing: "5X5-1000") == .dict5x5_1000)
        #expect(MarkerDictionary.Name(parsing: "aruco-original") == .arucoOriginal)
        #expect(MarkerDictionary.Name(parsing: "DICT_ARUCO_ORIGINAL") == .arucoOriginal)
        #expect(MarkerDictionary.Name(parsing: "4x4_50") == .dict4x4_50)
        #expect(MarkerDictionary.Name(parsing: "DICT_4X4_50") == .dict4x4_50)
        #expect(MarkerDictionary.Name(parsing: "dict_6x6_250") == .dict6x6_250)
        #expect(MarkerDictionary.Name(parsing: "DICT_APRILTAG_36h11") == .aprilTag36h11)
        #expect(MarkerDictionary.Name(parsing: "apriltag_36H11") == .aprilTag36h11)
        #expect(MarkerDictionary.Name(parsing: "tag16h5") == .aprilTag16h5)
        #expect(MarkerDictionary.Name(parsing: "7x7-1000") == .dict7x7_1000)
        #expect(MarkerDictionary.Name(parsing: "8x8_50") == nil)
        #expect(MarkerDictionary.Name(parsing: "apriltag_41h12") == nil)
        #expect(throws: MarkerKitError.self) { try MarkerDictionary.parse("6x6_300") }
        // Every short and OpenCV name reads back as itself; the 5x5 ones come first.
        for name in MarkerDictionary.Name.allCases {
            #expect(MarkerDictionary.Name(parsing: name.shortName) == name)
            #expect(MarkerDictionary.Name(parsing: name.rawValue.lowercased()) == name)
        }
        #expect(MarkerDictionary.Name.allCases.prefix(5).allSatisfy { $0.markerSize == 5 && $0.rawValue.hasPrefix("DICT_") })
        #expect(MarkerDictionary.Name.shortNames.hasPrefix("aruco-original, 5x5_50, 5x5_100, 5x5_250, 5x5_1000, 4x4_50"))
    }

    /// The ORIGINAL markers one cell from a 5x5 code: a 5x5 reader does not read them, exactly or corrected.
    @Test func fiveByFiveDoesNotReadOriginalMarkers() {
        let original = MarkerDictionary.arucoOriginal
        for reader in [MarkerDictionary.dict5x5_50, .dict5x5_100, .dict5x5_250, .dict5x5_1000] {
            for id in 0..<original.count {
                for turn in 0..<4 {
                    #expect(reader.decode(original.bits(for: id).rotatedClockwise(turn)) == nil, "\(reader) reads ORIGINAL \(id)")
                }
            }
        }
    }

    @Test func everyRotationOfEveryIDDecodesBackToItself() {
        for id in 0..<dictionary.count {
            for turn in 0..<4 {
                let decoded = dictionary.decode(dictionary.bits(for: id).rotatedClockwise(turn))
                #expect(decoded?.id == id, "ID \(id) turned \(turn)")
                if id != 1023 { #expect(decoded?.rotation == turn, "ID \(id) turned \(turn)") }
            }
        }
        // 1023 reads the same both ways up: its rotation can only be known modulo 180 degrees.
        #expect(dictionary.decode(dictionary.bits(for: 1023).rotatedClockwise(2))?.rotation == 0)
    }

    @Test func gridsThatAreNoMarkerDecodeToNothing() {
        #expect(dictionary.decode(MarkerBits(raw: 0)) == nil) // all black
        #expect(dictionary.decode(MarkerBits(raw: 0x1FF_FFFF)) == nil) // all white
        var flipped = 0
        for id in stride(from: 0, to: 1024, by: 37) {
            for cell in 0..<25 {
                let noisy = MarkerBits(raw: dictionary.bits(for: id).raw ^ (1 << UInt64(cell)))
                if let decoded = dictionary.decode(noisy), decoded.rotation == 0 { flipped += 1 }
            }
        }
        #expect(flipped == 0, "one flipped cell never reads as an upright marker")
    }

    @Test func rowWordsAndIDFormulaAreTheDocumentedOnes() {
        #expect(dictionary.bits(for: 0).description == "10000/10000/10000/10000/10000")
        #expect(dictionary.bits(for: 1023).description == "01110/01110/01110/01110/01110")
        // ID = sum over rows of (2*b(y,1) + b(y,3)) * 4^(4-y)
        for id in [1, 2, 3, 4, 213, 256, 700] {
            let bits = dictionary.bits(for: id)
            let formula = (0..<5).reduce(0) { sum, y in
                sum * 4 + 2 * (bits.isWhite(x: 1, y: y) ? 1 : 0) + (bits.isWhite(x: 3, y: y) ? 1 : 0)
            }
            #expect(formula == id)
        }
    }

    /// The book's reference marker (`shared/data/mastering-opencv-marker/marker.png`) as its README gives
    /// the grid, white = 1, border included.
    @Test func theBooksReferenceMarkerIs213() {
        let grid = "0000000/0100000/0011100/0101110/0101110/0101110/0000000".split(separator: "/")
        let data = grid[1...5].map { row in Array(row)[1...5].map { $0 == "1" } }.flatMap { $0 }
        let decoded = dictionary.decode(MarkerBits(cells: data))
        #expect(decoded == MarkerDictionary.Decoded(id: 213, rotation: 0))
        #expect(dictionary.bits(for: 213).printedCells == grid.flatMap { $0.map { $0 == "1" } })
    }

    @Test func minimumDistancesAreThreeTwoOneTwo() {
        #expect(dictionary.minimumDistance(degrees: 0) == 3)
        #expect(dictionary.minimumDistance(degrees: 90) == 2)
        #expect(dictionary.minimumDistance(degrees: 180) == 1)
        #expect(dictionary.minimumDistance(degrees: 270) == 2)
    }

    @Test func ambiguousIDsAreComputedFromTheCode() {
        let symmetric = dictionary.ambiguities.filter { $0.other == nil }
        #expect(symmetric.map(\.id) == [1023])
        #expect(symmetric.map(\.degrees) == [180])
        let pairs = Set(dictionary.ambiguities.compactMap { a in a.other.map { [min(a.id, $0), max(a.id, $0)] } })
        #expect(pairs == [[255, 1022], [767, 1020], [831, 1019], [959, 1011], [975, 1007]])
        #expect(dictionary.ambiguities.filter { $0.other != nil }.allSatisfy { $0.degrees == 180 && $0.distance == 1 })
        #expect(dictionary.ambiguousIDs == [255, 1022, 767, 1020, 831, 1019, 959, 1011, 975, 1007, 1023])
    }

    /// The 5x5 dictionaries are 5 cells apart at least, so one wrong cell beyond the correction never reaches
    /// another ID: none of their IDs is ambiguous.
    @Test func fiveByFiveHasNoAmbiguousIDs() {
        for d in [MarkerDictionary.dict5x5_50, .dict5x5_100, .dict5x5_250] {
            #expect(d.ambiguousIDs.isEmpty, "\(d): \(d.ambiguities.prefix(3))")
        }
    }

    /// The stated minimum code distance is the codes' own: over every pair of IDs in every turn, and every
    /// ID against itself turned.
    @Test(arguments: MarkerDictionary.Name.allCases)
    func minimumCodeDistanceIsComputedFromTheCodes(name: MarkerDictionary.Name) {
        let d = MarkerDictionary.named(name)
        var best = [0, 90, 180, 270].map { d.minimumDistance(degrees: $0) }.min()!
        for id in 0..<d.count {
            let bits = d.bits(for: id)
            for turn in 1...3 { best = min(best, (bits.rotatedClockwise(turn).raw ^ bits.raw).nonzeroBitCount) }
        }
        #expect(d.minimumCodeDistance == best)
    }
}
