import { isAction, splitSubGoals, statesAFact } from './sub-goal.splitter';

const texts = (task: string, maxSubGoals = 12) => splitSubGoals(task, { maxSubGoals, maxChars: 4000 }).subGoals.map((g) => g.text);

describe('splitSubGoals', () => {
  it('splits sentences and sequence words', () => {
    expect(texts('Search flights to Paris. Then book the cheapest one, and after that send me an SMS.')).toEqual(['Search flights to Paris', 'book the cheapest one', 'send me an SMS']);
  });

  it('makes a bare noun phrase after a sequence word its own step, with the verb of the step before', () => {
    expect(texts('Get the debt ratio of ACME for 2024, and also the quick ratio for the same year')).toEqual(['Get the debt ratio of ACME for 2024', 'get the quick ratio for the same year']);
    // With no verb to lend, the noun phrase is still a step of its own.
    expect(texts('Please help me order a custom sculpture of a horse, then another sculpture of a dog')).toEqual(['Please help me order a custom sculpture of a horse', 'another sculpture of a dog']);
    // Not every piece after a sequence word is a step: bare values stay with theirs.
    expect(texts('Convert 100 USD to EUR and then to JPY')).toEqual(['Convert 100 USD to EUR. to JPY']);
  });

  it('reads a verb-noun before "in" or "of" as the noun ("and change in time of 4 s"), a phrasal "check in" as the verb', () => {
    expect(texts('Work out the voltage for a flux of 3 Wb and change in time of 2 s')).toEqual(['Work out the voltage for a flux of 3 Wb and change in time of 2 s']);
    expect(texts('Book the hotel and check in online')).toEqual(['Book the hotel', 'check in online']);
  });

  it('makes each item of a numbered or ordered request a step of its own', () => {
    expect(texts('My scores: 7, 9 and 8. Please do the following:\n1) Calculate the mean of the scores.\n2) Find the median.\n- Chart them.')).toEqual([
      'My scores: 7, 9 and 8. Please do the following',
      'Calculate the mean of the scores',
      'Find the median',
      'Chart them',
    ]);
    expect(texts('A few things. First, I want the tide times for Brest. Second, I am curious about the moon phase. Finally, remind me at 6.')).toEqual([
      'A few things. First, I want the tide times for Brest',
      'Second, I am curious about the moon phase',
      'remind me at 6',
    ]);
  });

  it('reads a sequence word that opens a later sentence, and tells what "Also, <a fact>" adds to the step before', () => {
    expect(texts('Calculate the compound interest on $5000 at 2.5% for 10 years. Also, the interest is compounded quarterly.')).toEqual([
      'Calculate the compound interest on $5000 at 2.5% for 10 years. the interest is compounded quarterly',
    ]);
    expect(texts('Find the roots of x^2 - 4 = 0. Also, find the roots of x^3 - 8 = 0.')).toEqual(['Find the roots of x^2 - 4 = 0', 'find the roots of x^3 - 8 = 0']);
    // A numbered item that tells is still an item of its own.
    expect(texts('Find the roots of x^2 - 4 = 0. Finally, I have a cubic equation x^3 - 8 = 0.')).toEqual(['Find the roots of x^2 - 4 = 0', 'I have a cubic equation x^3 - 8 = 0']);
  });

  it('gives a premise ("Now, suppose …", "If …, how much …") and what follows it to the question it sets up', () => {
    expect(
      texts(
        'Imagine you are an investor. You bought a flat for $500,000. Can you calculate its value after 5 years? Now, suppose you had a sum of $200,000 too. If the inflation rate has been 3%, how much would that sum be worth today?',
      ),
    ).toEqual([
      'Imagine you are an investor. You bought a flat for $500,000. Can you calculate its value after 5 years',
      'Now, suppose you had a sum of $200,000 too. If the inflation rate has been 3%. how much would that sum be worth today',
    ]);
    // Told after a question with no question after it: more about that question.
    expect(texts('What is the weather in Oslo? I am flying there tomorrow.')).toEqual(['What is the weather in Oslo. I am flying there tomorrow']);
  });

  it('makes a sentence opened by a sequence word a step of its own, whatever its verb', () => {
    expect(texts('First, I need the factorial of 7. Then, I am after a used cello. It should be under $900. Lastly, I am doing a study on tides.')).toEqual([
      'First, I need the factorial of 7',
      'I am after a used cello. It should be under $900',
      'I am doing a study on tides',
    ]);
    // Inside a sentence, "then" still only splits where an action follows.
    expect(texts('Find the flights and then the cheapest one.')).toEqual(['Find the flights', 'find the cheapest one']);
  });

  it('reads "I\'m trying to …" as a request, past a stray quote before it', () => {
    expect(texts('" I\'m trying to figure out the RGB values of Cerulean. Secondly, I am interested in a used guitar.')).toEqual([
      '" I\'m trying to figure out the RGB values of Cerulean',
      'Secondly, I am interested in a used guitar',
    ]);
  });

  it('reads "You know that …" as context and "I want to know …" as a request; "Later, …" moves on to a step of its own', () => {
    expect(texts('Calculate the final temperature of the mixture. Later, you obtain a sample of 4 moles. You know that its molar mass is 16 g/mol. Can you find its mass?')).toEqual([
      'Calculate the final temperature of the mixture',
      'Later, you obtain a sample of 4 moles. You know that its molar mass is 16 g/mol',
      'Can you find its mass',
    ]);
    expect(texts('Book a table for two. I want to know the weather in Oslo.')).toEqual(['Book a table for two', 'I want to know the weather in Oslo']);
  });

  it('keeps a quoted passage whole, its own full stops and exclamation marks included', () => {
    expect(texts("Analyze the sentiment of the review 'I love the food here! It's always fresh.'. Then email it to Ann.")).toEqual([
      "Analyze the sentiment of the review 'I love the food here! It's always fresh.'",
      'email it to Ann',
    ]);
    // A whole request sent in quotes is still cut into its sentences.
    expect(texts('"Find the flights to Oslo. Then book the cheapest one."')).toEqual(['"Find the flights to Oslo', 'book the cheapest one."']);
  });

  it("never reads a quoted word as a verb that opens a step (\"'Open', 'Close' and 'Low' prices\")", () => {
    expect(texts("What were the 'Open', 'Close', and 'Low' prices for Nokia?")).toEqual(["What were the 'Open', 'Close', and 'Low' prices for Nokia"]);
  });

  it('reads a request told of someone else ("He needs to retrieve …") as a step', () => {
    expect(texts('John is a lawyer on case 12345. He needs to retrieve the verdict of that case. His son is busy. She needs to compute a triangle area.')).toEqual([
      'John is a lawyer on case 12345. He needs to retrieve the verdict of that case. His son is busy',
      'She needs to compute a triangle area',
    ]);
  });

  it('reads "I\'m curious about …" and "I\'m interested in …" as requests', () => {
    expect(texts('Book a table for two at 8. I am curious about the wine list there.')).toEqual(['Book a table for two at 8', 'I am curious about the wine list there']);
  });

  it('splits "and" and commas only between verb phrases', () => {
    expect(texts('Please cancel the alarm at 8:00 and set a new one at 6:30, check the weather in Oslo and Bergen')).toEqual([
      'Please cancel the alarm at 8:00',
      'set a new one at 6:30',
      'check the weather in Oslo and Bergen',
    ]);
  });

  it('splits at a second question joined by "and", but not at a relative "where" or "what"', () => {
    expect(texts('How many steps burn 500 calories and how much water should I drink after a 2 hour run?')).toEqual([
      'How many steps burn 500 calories',
      'how much water should I drink after a 2 hour run',
    ]);
    expect(texts('Find the town where I was born and what it is known for')).toEqual(['Find the town where I was born and what it is known for']);
  });

  it('keeps decimals, "No. 328" and "a.m." inside one sub-goal', () => {
    expect(texts('Deposit 3.5 thousand at No. 328 Yan an Road at 10 a.m. tomorrow')).toEqual(['Deposit 3.5 thousand at No. 328 Yan an Road at 10 a.m. tomorrow']);
  });

  it('attaches pieces that ask for nothing to the step they describe', () => {
    expect(texts('My name is Li Lei. Book a train to Shanghai. My ID is 1234 and my seat is 5A.')).toEqual(['My name is Li Lei. Book a train to Shanghai. My ID is 1234 and my seat is 5A']);
  });

  it('tells actions from context after lead-ins', () => {
    expect(isAction('I would like to book a room')).toBe(true);
    expect(isAction('please help me check the balance')).toBe(true);
    expect(isAction('my name is Zhang San')).toBe(false);
    // A request lead-in makes a request whatever verb follows; a question asks to find something out.
    expect(isAction('Please help me readjust my daily alarm')).toBe(true);
    expect(isAction('I need information on flights to Oslo')).toBe(true);
    expect(isAction('what time is it in Tokyo')).toBe(true);
    expect(isAction('I was told the flight is late')).toBe(false);
    // A polite question asks for whatever verb follows it, also after a lead-in phrase.
    expect(isAction("Then, using the 'filter_list' function, can you filter out the fruits")).toBe(true);
    expect(isAction('could you please tidy the list')).toBe(true);
    expect(isAction('a shop you can trust')).toBe(false);
  });

  it('splits a list of polite questions into one step each', () => {
    expect(texts("Given the list ['a', 'b'], can you first sort it? Then, using the 'filter_list' function, can you filter out the b's?")).toEqual([
      "Given the list ['a', 'b'], can you first sort it",
      "using the 'filter_list' function, can you filter out the b's",
    ]);
  });

  it('splits a question from the action after it', () => {
    expect(texts('what time is it in Tokyo, then convert 20 km to miles')).toEqual(['what time is it in Tokyo', 'convert 20 km to miles']);
  });

  it('bounds the work on a huge task and says so', () => {
    const long = Array.from({ length: 2000 }, (_, i) => `Send message ${i}.`).join(' ');
    const result = splitSubGoals(long, { maxSubGoals: 5, maxChars: 4000 });
    expect(result.subGoals).toHaveLength(5);
    expect(result.truncated).toBe(true);
  });

  it('keeps "do the same for X" a piece of its own: the step before, asked again', () => {
    expect(texts('Give me the founding year of Oxford, and then do the same for Cambridge.')).toEqual(['Give me the founding year of Oxford', 'do the same for Cambridge']);
  });

  it('returns nothing for text without words', () => {
    expect(texts(' ... 42 !')).toEqual([]);
  });
});

describe('statesAFact', () => {
  it('tells statements ("the amount is 300 yuan", "I booked the wrong flight") from requests', () => {
    for (const told of [
      'the amount is 300 yuan',
      'the weather was clear',
      'the last login time was 2023-09-09 18:30',
      'I booked the wrong flight',
      'my account ID is 12345',
      'we have booked two rooms',
    ])
      expect([told, statesAFact(told)]).toEqual([told, true]);
    for (const asked of [
      'we are interested in attending a concert',
      'I need to change the ticket',
      'the weather forecast for Oslo',
      'check the weather',
      'what is the weather',
      'she is looking to buy a flute',
    ])
      expect([asked, statesAFact(asked)]).toEqual([asked, false]);
  });
});

describe('splitSubGoals: another place for the step before', () => {
  it('keeps "… and also for San Francisco" with its step, written as one more of its values', () => {
    expect(splitSubGoals('Could you tell me the weather for Boston, MA and also for San Francisco?').subGoals.map((g) => g.text)).toEqual([
      'Could you tell me the weather for Boston, MA and also for San Francisco',
    ]);
  });
});
