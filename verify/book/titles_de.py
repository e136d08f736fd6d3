"""The one-line titles of the rule IDs in German, for the book's German pages.

spec/rulebook.toml holds the titles in English, as RULES.md words them; these follow it
line by line in the German refresher's own terms (Präsident, Kanzler, Wahlzähler, Gesetz,
Sonderwahl, „Loyalität prüfen“). A rule ID missing here is shown with its English title,
marked as English; tests/test_book.py checks that none is missing."""

from __future__ import annotations

TITLES_DE: dict[str, str] = {
    "R-S1": "5 bis 10 Spieler",
    "R-S2": "Rollen nach Spielerzahl: 5 3/1/1, 6 4/1/1, 7 4/2/1, 8 5/2/1, 9 5/3/1, 10 6/3/1",
    "R-S3": "Gesetzesstapel: 6 liberale + 11 faschistische Gesetze, gemischt, verdeckt",
    "R-S4": "Die Partei folgt der Rolle: Liberaler → liberal; Faschist und Hitler → faschistisch",
    "R-S5": "Was jede Rolle zu Beginn weiß (5–6: Faschisten und Hitler kennen sich; 7–10: Hitler kennt niemanden)",
    "R-S6": "Der erste Präsidentschaftskandidat wird zufällig bestimmt",
    "R-S7": "Es gilt das Spielbrett der Spielerzahl zu Beginn, auch nach Hinrichtungen",
    "R-E1": "Jede neue Runde geht die Kandidatur im Uhrzeigersinn an die nächste lebende Person",
    "R-E2": "Der Kandidat nominiert eine andere lebende Person als Kanzler",
    "R-E3": "Sperren: der zuletzt gewählte Präsident und Kanzler dürfen nicht als Kanzler nominiert werden",
    "R-E4": "Bei fünf oder weniger Lebenden ist nur der zuletzt gewählte Kanzler gesperrt",
    "R-E5": "Sperren gelten nur für die Nominierung als Kanzler",
    "R-E6": "Alle Lebenden stimmen ab, auch die beiden Kandidaten; Tote stimmen nicht",
    "R-E7": "Die Regierung ist genau dann gewählt, wenn mehr als die Hälfte mit Ja stimmt",
    "R-E8": "Eine gescheiterte Wahl rückt den Wahlzähler um eins vor; die Kandidatur geht weiter",
    "R-E9": "Chaos: bei drei gescheiterten Wahlen wird das oberste Gesetz erlassen, keine Macht, Wahlzähler "
            "zurück, Sperren aufgehoben",
    "R-E10": "Hitler-Frage: gewählt, wenn schon drei oder mehr faschistische Gesetze liegen, und Hitler ist Kanzler",
    "R-E11": "Eine erfolgreiche Wahl allein setzt den Wahlzähler nicht zurück",
    "R-E12": "Das gewählte Paar ist ab dem Moment der Wahl gesperrt",
    "R-L1": "Der Präsident zieht die obersten drei Gesetze",
    "R-L2": "Der Präsident legt eines verdeckt ab und gibt die anderen zwei zusammen an den Kanzler",
    "R-L3": "Der Kanzler legt eines verdeckt ab und erlässt das andere",
    "R-L4": "Abgelegte Gesetze werden nie gezeigt; jeder darf über das Gesehene lügen",
    "R-L5": "Am Ende einer Gesetzgebung mit weniger als drei Gesetzen im Stapel: mit der Ablage neu mischen",
    "R-L6": "Jedes erlassene Gesetz, durch eine Regierung oder durch Chaos, setzt den Wahlzähler auf 0",
    "R-X1": "Ein faschistisches Gesetz einer gewählten Regierung auf einem Feld mit Macht verpflichtet den "
            "Präsidenten, sie zu nutzen",
    "R-X2": "Mächte gelten einmal und sammeln sich nicht an",
    "R-X3": "Loyalität prüfen: eine andere lebende, noch nicht geprüfte Person; Hitler zeigt „faschistisch“",
    "R-X4": "Sonderwahl: eine beliebige andere lebende Person ist nächster Kandidat; danach kehrt die "
            "Kandidatur zurück",
    "R-X5": "Gesetzesvorschau: der Präsident sieht die obersten drei Gesetze und legt sie in derselben "
            "Reihenfolge zurück",
    "R-X6": "Hinrichtung: der Präsident wählt eine andere lebende Person, die ausscheidet",
    "R-X7": "Die Spielbretter: die Macht jedes faschistischen Feldes nach Spielerzahl",
    "R-V1": "Das Veto gibt es ab fünf erlassenen faschistischen Gesetzen (auf welchem Weg auch immer)",
    "R-V2": "Nachdem der Präsident zwei Gesetze weitergegeben hat, darf nur der Kanzler ein Veto vorschlagen",
    "R-V3": "Ein angenommenes Veto legt beide Gesetze ab und rückt den Wahlzähler vor; ein abgelehntes "
            "verpflichtet den Kanzler zu erlassen",
    "R-V4": "Ein angenommenes Veto hebt die Sperren des gewählten Paars nicht auf",
    "R-W1": "Die Liberalen gewinnen mit dem fünften liberalen Gesetz",
    "R-W2": "Die Liberalen gewinnen, wenn Hitler hingerichtet wird",
    "R-W3": "Die Faschisten gewinnen mit dem sechsten faschistischen Gesetz",
    "R-W4": "Die Faschisten gewinnen, wenn Hitler wie in R-E10 zum Kanzler gewählt wird",
    "R-W5": "Das Spiel endet im Moment eines Siegs; danach wird nichts mehr gespielt",
    "D-1": "Sonderwahl abgelehnt: die Kandidatur geht links vom Präsidenten weiter, der sie ausgerufen hat",
    "D-2": "Sonderwahl auf die Person, die ohnehin folgt: zweimal hintereinander Präsident",
    "D-3": "Der Präsident, der die Sonderwahl ausrief, wird währenddessen hingerichtet: der nächste Lebende "
           "links von ihm",
    "D-4": "Ein fünftes faschistisches Gesetz durch Chaos schaltet das Veto frei, gewährt aber keine Hinrichtung",
    "D-5": "Ein angenommenes Veto löst Chaos aus, bei weniger als drei Gesetzen im Stapel: erst mischen, dann Chaos",
}
