/**
 * Function words (articles, pronouns, prepositions, conjunctions, auxiliaries, courtesy) of German, French,
 * Spanish and Portuguese. GloVe's English vocabulary holds many of them ("de" is its 328th word, "la" its 979th,
 * from names and quotations), and ranks them far below English function words, so the embedder weighed them as
 * content: every Spanish request looked like every other ("¿Cuál es la capital de Australia?" recalled a skill
 * learned from "Reserva una sala de reuniones para el jueves"), and a German skill was named `run-eine-und`.
 *
 * A text is taken to be in one of these languages when it holds more distinct marker words of that language
 * (words that are not English words) than English function words, and two at least when it holds any English
 * one; only then are its
 * function words dropped, the ambiguous ones too ("die", "in", "con"): an English request that names "La Casa
 * del Sol" keeps every word. Pure.
 */

export type Language = 'de' | 'fr' | 'es' | 'pt';

interface Words {
  /** Function words that are not English words: they tell the language. */
  markers: readonly string[];
  /** Function words that are English words too ("die", "pour"): dropped only from a text in this language. */
  ambiguous: readonly string[];
}

const split = (s: string) => s.split(/\s+/).filter(Boolean);

const WORDS: Readonly<Record<Language, Words>> = {
  de: {
    markers: split(`
      der dem des ein eine einen einem einer eines und oder aber auch noch schon nur sehr doch mal ich mich mir
      mein meine meinen meinem meiner meines dein deine deinen du dich dir sie wir uns unser unsere unseren unserer
      ihr ihre ihren ihrem ihm ihn er ist sind bitte nicht kein keine keinen für von zu zum zur auf aus bei nach
      über vor durch gegen ohne kannst könntest könnten möchte möchten soll sollte muss musst habe hast haben wird
      werden wurde das dass diese dieser dieses diesen wie wo wann warum welche welcher welches hier dort jetzt
      danke darum dann wenn weil ob sich mach mache machen unter zwischen gibt gib sollte ins vom beim`),
    ambiguous: split('die in an am im so was will bin hat war man mit um den es da'),
  },
  fr: {
    markers: split(`
      le les des une et est sont je il elle nous vous ils elles mon mes ton tes ses notre nos votre vos leur leurs
      ce cet cette ces qui que quoi dont où au aux avec dans sur sous chez par sans mais ou donc ni pas ne moi toi
      lui eux peux peut pouvez veux voudrais faut fais fait être avoir ai suis merci bonjour plaît quel quelle
      quels quelles comment pourquoi quand très aussi ça entre vers`),
    ambiguous: split('de la du un pour plus son sa ma tu en on as es me te se'),
  },
  es: {
    markers: split(`
      el los las del una unos unas que qué por para mi mis tus su sus nuestro nuestra nuestros yo te lo les es
      está están estoy hay muy más pero cómo cuál cuáles dónde cuándo porque puedes puede podrías quiero
      necesito gracias hola este esta estos estas esto ese esa eso ya sobre entre hasta desde cual quién también`),
    ambiguous: split('la de en con sin al un no me se le tu son como favor'),
  },
  pt: {
    markers: split(`
      os um uma uns umas da dos das na nos nas em ao aos às pelo pela pelos pelas para por com sem meu minha meus
      minhas seu sua seus suas nosso nossa você vocês eu ele ela eles elas que não está estão são foi mas como
      onde quando porque pode posso quero preciso obrigado obrigada olá este esta isso isto esse essa qual quais
      muito muita mais sobre até também`),
    ambiguous: split('de do no as me se te ser'),
  },
};

/**
 * English function words: a text with as many of these as of one language's markers stays English. Those that are
 * function words of one of the languages too ("in", "me", "no") tell nothing and do not count.
 */
const ENGLISH: ReadonlySet<string> = new Set(
  split(`
    the a an to of and or is are was be been my me you your it this that for in on at with from by can could
    please do not have has will would what how need want our we they their there here all some any just like if
    as so but no up out about into get also only then than when where which who why`).filter(
    (w) => !Object.values(WORDS).some((l) => l.markers.includes(w) || l.ambiguous.includes(w)),
  ),
);

const MARKERS = Object.entries(WORDS).map(([lang, w]) => ({
  lang: lang as Language,
  markers: new Set(w.markers),
  all: new Set([...w.markers, ...w.ambiguous]),
}));

/** Each marker word's languages (indices into MARKERS). */
const MARKER_OF = new Map<string, number[]>();
MARKERS.forEach(({ markers }, i) => {
  for (const w of markers) MARKER_OF.set(w, [...(MARKER_OF.get(w) ?? []), i]);
});

/**
 * The languages a text's lowercase words are written in: each whose distinct markers outnumber the English function
 * words, two at least when there is one of those. Empty for an English text.
 */
export function languagesOf(words: readonly string[]): Language[] {
  // One pass over the words (every text embedded is asked, most of them English): each word's languages at once.
  // Only the words that count are kept apart to be counted once: no set of every word of a long text.
  let englishSeen: Set<string> | null = null;
  let markersSeen: Set<string> | null = null;
  for (const w of words) {
    if (ENGLISH.has(w)) (englishSeen ??= new Set()).add(w);
    else if (MARKER_OF.has(w)) (markersSeen ??= new Set()).add(w);
  }
  const out: Language[] = [];
  if (!markersSeen) return out;
  const english = englishSeen?.size ?? 0;
  const counts: number[] = new Array(MARKERS.length).fill(0);
  for (const w of markersSeen) for (const i of MARKER_OF.get(w)!) counts[i]++;
  MARKERS.forEach(({ lang }, i) => {
    const n = counts[i];
    if (n > english && (n >= 2 || english === 0)) out.push(lang);
  });
  return out;
}

/**
 * The function words of a text's lowercase words that say nothing about its task: those of each language the text
 * is written in (languagesOf). Empty for an English text.
 */
export function functionWordsOf(words: readonly string[]): ReadonlySet<string> {
  const languages = languagesOf(words);
  if (languages.length === 0) return EMPTY;
  const out = new Set<string>();
  for (const { lang, all } of MARKERS) if (languages.includes(lang)) for (const w of words) if (all.has(w)) out.add(w);
  return out;
}

const EMPTY: ReadonlySet<string> = new Set();
