import { describe, expect, it } from 'vitest';
import { wordSkill } from './skill-naming.js';

const idf = (w: string) => (['order', 'the', 'you'].includes(w) ? 0.2 : 2);

describe('skill names and descriptions', () => {
  it('names a task by the verb the users ask with and the object of the action', () => {
    const w = wordSkill({
      goals: [
        'You want to cancel the order <id> because you changed your mind',
        'Cancel my pending order please',
        'You wish to cancel order <id>',
      ],
      cues: ['Hi, I need to cancel an order I just placed.'],
      toolSequence: ['find_user', 'get_order_details', 'cancel_pending_order'],
      actionTool: 'cancel_pending_order',
      wordWeight: idf,
    });
    expect(w.nameWords).toEqual(['cancel', 'pending', 'order']);
    expect(w.title).toBe('Cancel Pending Order');
    expect(w.description).toMatch(/^Cancel Pending Order: /);
    expect(w.description).toMatch(/Use when a user asks to cancel pending order\./);
  });

  it('calls a request to fix something a fix, whatever step does it (a coding agent edits)', () => {
    const w = wordSkill({
      goals: [
        'The cart total ignores the discount code, fix it',
        'Discounts are not applied to the cart total; please repair the calculation',
        'Fix the bug where the cart total skips the discount',
      ],
      cues: [],
      toolSequence: ['Grep', 'Read', 'Edit'],
      wordWeight: idf,
    });
    expect(w.nameWords[0]).toBe('fix');
    expect(w.nameWords).toContain('cart');
  });

  it("names a coding agent's look at a log and a file by what the requests name, not by its Read", () => {
    const w = wordSkill({
      goals: [
        'look up why CI failed',
        'the CI run on my PR is red, why?',
        'check the latest GitHub Actions failure and tell me what broke',
        'CI failed on main again, find out what happened',
      ],
      cues: [],
      // What the heuristic distiller passes for `gh run list`, `gh run view ID --log-failed` and a Read.
      toolSequence: ['run', 'run', 'Read'],
      commands: ['gh run list', 'gh run view', null],
      wordWeight: idf,
    });
    expect(w.nameWords).toEqual(['check', 'ci']);
    expect(w.title).toBe('Check CI');
  });

  it('names a rebase by the verb the users ask with, the command that does it', () => {
    const w = wordSkill({
      goals: [
        'rebase my branch on main and rerun tests',
        'my branch is behind main, rebase it and check tests still pass',
        'rebase onto origin/main please, then npm test',
      ],
      cues: [],
      toolSequence: ['fetch_origin', 'rebase', 'test'],
      commands: ['git fetch', 'git rebase', 'npm test'],
      wordWeight: idf,
    });
    expect(w.nameWords[0]).toBe('rebase');
  });

  it('reads a fix the request names ("note the fix in the changelog") as no request to fix', () => {
    const w = wordSkill({
      goals: [
        'bump the version to 1.3.0 and add a CHANGELOG entry for the currency rounding fix',
        'thanks! now bump the patch version and note the fix in the changelog',
        'cool. cut a 1.4.1 with a changelog line for that rename',
      ],
      cues: [],
      toolSequence: ['Read', 'Edit', 'Bash'],
      wordWeight: idf,
      toolShare: () => 0.9,
    });
    // Before: fix-bump-changelog, "Use when a user reports a problem with their bump changelog".
    expect(w.nameWords[0]).toBe('bump');
    expect(w.description).not.toContain('reports a problem');
    // Nor is a release the request names a request to release.
    expect(
      wordSkill({
        goals: [
          'Add a CHANGELOG entry for the 2.3.0 release',
          'Write the changelog notes for version 2.4.0',
          'Update CHANGELOG.md with the new release section for 2.5.0',
        ],
        cues: [],
        toolSequence: ['Read', 'Bash', 'Edit'],
        wordWeight: idf,
        toolShare: () => 0.2,
      }).nameWords,
    ).toEqual(['edit', 'changelog']);
    // Chat shorthand names nothing: "pls" is no broken thing.
    const pls = wordSkill({
      goals: ['pytest red again after my pagination refactor pls fix', 'the orders test fails pls fix it'],
      cues: [],
      toolSequence: ['shell', 'apply_patch', 'shell'],
      wordWeight: idf,
      toolShare: () => 0.9,
    });
    expect(pls.nameWords).not.toContain('pls');
    // A request that asks for one is still a fix.
    expect(
      wordSkill({
        goals: ['the date test fails, can you fix it', 'fix the failing date test', 'please fix the date test'],
        cues: [],
        toolSequence: ['Read', 'Edit', 'Bash'],
        wordWeight: idf,
        toolShare: () => 0.9,
      }).nameWords[0],
    ).toBe('fix');
  });

  it('names a task by the users verb when the acting tool is one most sessions call (Edit), and no tool names its object', () => {
    const input = {
      goals: [
        'Rename the helper formatUser to formatAccount everywhere',
        'Rename getCfg to loadConfig across the codebase',
        'Please rename the function calcTotal to computeTotal in all files',
      ],
      cues: [],
      toolSequence: ['Grep', 'Read', 'Edit', 'Bash'],
      wordWeight: idf,
    };
    // Where Edit is rare (an agent that edits for one kind of task), it still says only how files change, not the
    // task: the users' verb names it (it was edit-files, from Grep's "search file").
    expect(wordSkill({ ...input, toolShare: () => 0.2 }).nameWords).toEqual(['rename']);
    // Nor does Codex's apply_patch name a task, or its "patch" an object: a release asked for in three ways is an
    // edit of what the requests name.
    const release = wordSkill({
      goals: [
        'ok time for 0.4.1, bump the version, changelog, tag it',
        'cut release 0.4.0: version and changelog, then git tag',
        'pls prep the 0.5.0 release (version + changelog + git tag)',
      ],
      cues: [],
      toolSequence: ['shell', 'apply_patch', 'shell'],
      wordWeight: idf,
      toolShare: () => 0.3,
    });
    expect(release.nameWords[0]).toBe('edit');
    expect(release.nameWords).toContain('changelog');
    expect(release.nameWords).not.toContain('patch');
    expect(release.description).not.toContain('apply patch');
    const common = wordSkill({ ...input, toolShare: (t) => (t === 'Grep' ? 0.3 : 0.95) });
    // Not the files Grep searches: the requests name no object they share.
    expect(common.nameWords).toEqual(['rename']);
    expect(common.description).toContain('Use when a user asks to rename something.');
    const shared = wordSkill({
      ...input,
      goals: [
        'Rename the function formatUser',
        'Rename the function getCfg to loadConfig',
        'rename function calcTotal',
      ],
      toolShare: () => 0.95,
    });
    expect(shared.nameWords).toEqual(['rename', 'function']);
  });

  it('names a fix learned from two requests by what both say is broken, never by what one of them names', () => {
    const w = wordSkill({
      goals: [
        'The formatCurrency test is failing, can you fix it?',
        'CI is failing on the invoice totals test, fix it',
      ],
      cues: [],
      toolSequence: ['Read', 'Edit', 'Bash'],
      wordWeight: idf,
    });
    expect(w.nameWords).toEqual(['fix', 'test']);
  });

  it('does not add to a name what another acting step acts on (a posted tweet and a filled tank are two tasks)', () => {
    const w = wordSkill({
      goals: [
        'Fill the fuel tank to 40 gallons, then share a tweet about my road trip',
        'Top up the tank and post a tweet saying we are on our way',
        'Please fill my tank and tweet that the car is ready',
        'Share a tweet about the trip once the tank is full',
      ],
      cues: [],
      toolSequence: ['fillFuelTank', 'authenticate_twitter', 'share_tweet'],
      actionTool: 'share_tweet',
      wordWeight: idf,
    });
    expect(w.nameWords).toEqual(['share', 'tweet']);
  });

  it('is not a fix when only one request of two mentions an error, as an instruction', () => {
    const w = wordSkill({
      goals: [
        "Go to the 'Documents' directory and create a file called 'summary.txt'. If it already exists, return an error",
        "In my folder called 'Lectures', I'd like to set up a new file called 'Notes2023.txt'.",
      ],
      cues: [],
      toolSequence: ['touch', 'echo'],
      wordWeight: idf,
    });
    expect(w.nameWords[0]).not.toBe('fix');
    expect(w.nameWords).toContain('file');
  });

  it('calls a problem report a fix, named by what is broken, not by the tool that ended it', () => {
    const w = wordSkill({
      goals: [
        "Your phone has been showing 'No Service' for the past few hours.",
        "Your phone has been showing 'No Service' for the past few hours.",
      ],
      cues: [
        'My phone says No Service and I cannot make calls',
        'Hi, there is no service on my phone since this morning',
      ],
      toolSequence: ['get_customer_by_phone', 'resume_line', 'transfer_to_human_agents'],
      actionTool: 'transfer_to_human_agents',
      wordWeight: idf,
    });
    expect(w.nameWords[0]).toBe('fix');
    expect(w.nameWords).toContain('phone');
    expect(w.nameWords).toContain('service');
    expect(w.nameWords.join('-')).not.toMatch(/transfer|human|agents/);
    expect(w.description).toMatch(/Use when a user reports a problem with their phone service\./);
  });

  it('never uses a name of a person or a placeholder, and quotes no goal', () => {
    const goals = [
      'You are Sophia Silva and you want to exchange the keyboard <id>',
      'You are Sophia Silva. Exchange the lamp from order <id>',
    ];
    const w = wordSkill({
      goals,
      cues: [],
      toolSequence: ['get_order_details', 'exchange_delivered_order_items'],
      actionTool: 'exchange_delivered_order_items',
      wordWeight: idf,
    });
    expect(w.nameWords).toEqual(['exchange', 'delivered', 'order', 'items']);
    expect(w.description).not.toMatch(/sophia|silva|<|>|\{/i);
    for (const g of goals) expect(w.description).not.toContain(g);
  });

  it('names what a look-up-only procedure was asked about in whole words (messages, never the stem "messag")', () => {
    const w = wordSkill({
      goals: [
        'You want to delete the voice messages on your line <id>.',
        'You wish to delete old messages from your inbox.',
        'Delete the saved messages of your account please.',
      ],
      cues: [],
      toolSequence: ['get_account_details', 'list_voice_messages', 'transfer_to_human_agents'],
      toolWeight: (t) => (t.startsWith('get_') ? 0.2 : 2),
      wordWeight: () => 1,
    });
    expect(w.nameWords).toEqual(['escalate', 'messages', 'deletion']);
    expect(w.description).toMatch(/Use when a user asks to delete their messages: /);
  });

  it('names the task the steps lead to, not a hand-off to a person at the end', () => {
    const w = wordSkill({
      goals: [
        'You want to change your upcoming flight from LAS to IAH to a nonstop flight.',
        'You want to change the return flight of reservation <id> to the next day.',
      ],
      cues: ['Hi, I need to make some changes to my upcoming flight.', 'Hi! I would like to change my flight.'],
      toolSequence: [
        'get_reservation_details',
        'search_direct_flight',
        'update_reservation_flights',
        'transfer_to_human_agents',
      ],
      toolWeight: (t) => (t.startsWith('get_') ? 0.2 : 2),
      wordWeight: idf,
    });
    expect(w.nameWords[0]).toMatch(/^(change|update)$/);
    expect(w.nameWords).toContain('reservation');
    expect(w.nameWords.some((x) => x.startsWith('flight'))).toBe(true);
    expect(w.nameWords.join('-')).not.toMatch(/transfer|human|agent/);
    expect(w.actionTool).toBe('update_reservation_flights');
    // The description says what the steps do, in words, and that the person is handed the case last.
    expect(w.description).toMatch(
      /looks up reservation and direct flight, then updates reservation flights and hands over to a human agent/,
    );
  });

  it('names a fix by the words next to the problem, never by a lookup key or a quoted label read as a name', () => {
    const w = wordSkill({
      goals: [
        'You mobile data is not working properly. It either stops working or is very slow.',
        'Your mobile data is very slow and you want excellent internet speed.',
      ],
      cues: ['Hi, my mobile data is really slow on my phone.', "My phone's mobile data keeps failing, can you help?"],
      toolSequence: ['get_customer_by_phone', 'check_network_status', 'toggle_airplane_mode', 'toggle_data'],
      toolWeight: () => 1,
      wordWeight: idf,
    });
    expect(w.nameWords).toEqual(['fix', 'mobile', 'data']);
    const sms = wordSkill({
      goals: ['You are unable to send MMS messages using your messaging app.'],
      cues: [
        "Hi, I can't send MMS messages, they just fail.",
        "My phone says 'Message Failed' when I send MMS messages.",
      ],
      toolSequence: ['get_customer_by_phone', 'check_apn_settings', 'reset_apn_settings', 'can_send_mms'],
      toolWeight: () => 1,
      wordWeight: idf,
    });
    expect(sms.nameWords).toEqual(['fix', 'mms', 'messages']);
    expect(sms.title).toBe('Fix MMS Messages');
    expect(sms.description).not.toMatch(/message failed/i);
  });

  it("writes a word in capitals only when the requests never write it otherwise (MMS, not 'START' mode)", () => {
    const w = wordSkill({
      goals: [
        "Lock the doors, press the brake and start the engine in 'START' mode",
        'Start the car: doors locked, brake pressed, ignition in START',
        'Please start the engine once the doors are locked',
      ],
      cues: [],
      toolSequence: ['lockDoors', 'pressBrakePedal', 'startEngine'],
      toolWeight: () => 1,
      wordWeight: idf,
    });
    expect(w.nameWords).toEqual(['start', 'engine']);
    expect(w.title).toBe('Start Engine');
    expect(w.description).toMatch(/^Start Engine: /);
  });

  it('never repeats a word, and names shell steps by their verbs', () => {
    const cancel = wordSkill({
      goals: ['You want to cancel two of your reservations.', 'Cancel my reservations please.'],
      cues: [],
      toolSequence: ['get_reservation_details', 'cancel_reservation'],
      toolWeight: () => 1,
      wordWeight: idf,
    });
    expect(cancel.nameWords).toEqual(['cancel', 'reservations']);
    const copy = wordSkill({
      goals: ['Copy the report into the archive directory.', 'Please copy notes.txt to the backup directory.'],
      cues: [],
      toolSequence: ['cd', 'cp'],
      toolWeight: () => 1,
      wordWeight: idf,
    });
    expect(copy.nameWords[0]).toBe('copy');
    expect(copy.nameWords).toEqual(['copy', 'file']);
  });

  it('names a procedure that only reads by what its reading step does, not by the verb of one request', () => {
    // No verb is shared by most requests; "post" here means "after", and no step posts anything.
    const grep = wordSkill({
      goals: [
        "Post review, organize the lines in 'summary.txt' alphabetically.",
        "Investigate within 'log.txt' for the occurrence of the keyword 'Error'.",
        "Perform a detailed search using grep to identify sections in the file pertaining to 'budget analysis'.",
        'Navigate to that first analysis and identify any line with error in it.',
      ],
      cues: [],
      toolSequence: ['cd', 'grep'],
      toolWeight: () => 1,
      wordWeight: idf,
    });
    expect(grep.nameWords).toEqual(['search', 'file']);
    const distance = wordSkill({
      goals: [
        'Could you determine the distance to Rivermist to help me plan my fuel stops?',
        'I am planning a road trip from Rivermist and need to know how far I will be traveling.',
        'Will you estimate the distance between San Francisco and Silverpine for me?',
      ],
      cues: [],
      toolSequence: ['get_zipcode_based_on_city', 'estimate_distance'],
      toolWeight: () => 1,
      wordWeight: idf,
    });
    expect(distance.nameWords).toEqual(['estimate', 'distance']);
    // A verb some requests use stays when one of the steps does it (check_tire_pressure).
    const tires = wordSkill({
      goals: [
        'Could you check my tire pressure? If it is below 40, point me to the nearest tire shop.',
        'Please assess my tire pressures and guide me to the closest tire shop if any is under 40 PSI.',
        'Is my tire pressure fine before the trip? Point me to a shop if it is low.',
      ],
      cues: [],
      toolSequence: ['check_tire_pressure', 'find_nearest_tire_shop'],
      toolWeight: () => 1,
      wordWeight: idf,
    });
    expect(tires.nameWords.slice(0, 3)).toEqual(['check', 'tire', 'pressure']);
  });

  it('tells two procedures of one name apart by what most of their requests mention, before a number', () => {
    const w = wordSkill({
      goals: [
        'In the documents directory, display the last line of the first file for me.',
        'Go to the documents folder. What does the last line of the first document look like?',
        "Find 'config.py' somewhere deep in the file system and display its last line.",
      ],
      cues: [],
      toolSequence: ['cd', 'tail'],
      toolWeight: () => 1,
      wordWeight: idf,
    });
    expect(w.nameWords).toEqual(['show', 'file']);
    expect(w.qualifiers.at(-1)).toEqual(['line']);
    expect(w.qualifiers.flat()).not.toContain('file');
  });

  it('offers what other steps do to tell two procedures of one name apart', () => {
    const w = wordSkill({
      goals: ['Fill the tank with 30 liters of fuel.', 'Please fill my fuel tank before the trip.'],
      cues: [],
      toolSequence: ['fillFuelTank', 'lockDoors', 'post_tweet'],
      toolWeight: (t) => (t === 'post_tweet' ? 3 : 1),
      wordWeight: idf,
    });
    expect(w.nameWords).toEqual(['fill', 'fuel', 'tank']);
    expect(w.qualifiers).toEqual([
      ['post', 'tweet'],
      ['lock', 'doors'],
    ]);
  });

  it('names a procedure in which no step acts by what it does: it checks or escalates what was asked', () => {
    const goals = ['You want to change your flight to the next day.', 'Change my flight reservation to a later one.'];
    const looked = wordSkill({
      goals,
      cues: [],
      toolSequence: ['get_reservation_details', 'search_direct_flight', 'calculate'],
      toolWeight: () => 1,
      wordWeight: idf,
    });
    expect(looked.nameWords).toEqual(['check', 'flight', 'change']);
    expect(looked.description).toMatch(/changing nothing itself/);
    const handed = wordSkill({
      goals,
      cues: [],
      toolSequence: ['get_reservation_details', 'transfer_to_human_agents'],
      toolWeight: () => 1,
      wordWeight: idf,
    });
    expect(handed.nameWords[0]).toBe('escalate');
    expect(handed.nameWords.at(-1)).toBe('change');
    expect(handed.description).toMatch(/hands the case to a person/);
  });

  it("says the words most users' own first messages share, when the task statements do not", () => {
    const goals = Array(4).fill("Your phone has been showing 'No Service' for the past few hours.");
    const cues = [
      'My phone says No Service and I cannot make calls. I hope you can fix it.',
      'Hi, no service on my phone since this morning, calls fail. I hope this is quick.',
      'I have No Service and my calls do not go through, I hope you can help.',
      'Hello, my phone shows No Service. Can you help?',
    ];
    const sequence = ['get_customer_by_phone', 'get_bills_for_customer', 'send_payment_request', 'resume_line'];
    const w = wordSkill({ goals, cues, toolSequence: sequence, toolWeight: () => 1, wordWeight: idf });
    // "calls" is in three of four messages; "hope" too, but it is chat, not the task.
    expect(w.description).toMatch(/Typical requests mention [^.]*\bcalls\b/);
    expect(w.description).not.toMatch(/\bhope\b/);
    // Two messages are one conversation replayed, as often as not: their words are not "typical".
    const two = wordSkill({
      goals,
      cues: cues.slice(0, 2),
      toolSequence: sequence,
      toolWeight: () => 1,
      wordWeight: idf,
    });
    expect(two.description).not.toMatch(/\bcalls\b/);
  });

  it('calls a word typical only when three sessions asked with it, not one persona twice', () => {
    const sequence = ['find_user_id_by_email', 'get_order_details', 'cancel_pending_order'];
    // Two runs of one task: its statement and each run's first message all mention the camera.
    const goals = Array(2).fill('You want to cancel the digital camera you ordered; the zoom lens stays.');
    const cues = ['Hi, please cancel my digital camera order.', 'I want to cancel the digital camera with zoom.'];
    const two = wordSkill({ goals, cues, toolSequence: sequence, toolWeight: () => 1, wordWeight: idf });
    expect(two.nameWords).toEqual(['cancel', 'pending', 'order']);
    expect(two.description).not.toMatch(/Typical requests/);
    expect(two.keywords).toEqual([]);
    // Three sessions' statements say it: that is what such requests mention.
    const three = wordSkill({
      goals: [...goals, 'You want to cancel the camera order, it was a gift nobody wanted.'],
      cues,
      toolSequence: sequence,
      toolWeight: () => 1,
      wordWeight: idf,
    });
    expect(three.description).toMatch(/Typical requests mention [^.]*\bcamera\b/);
    expect(three.description).not.toMatch(/\bzoom\b/);
  });

  it('tells two look-up-only procedures of one name apart by what they look at, the last lookup first', () => {
    const w = wordSkill({
      goals: ['You want to change your flight to the next day.', 'Change my flight reservation to a later one.'],
      cues: [],
      toolSequence: ['get_reservation_details', 'search_direct_flight', 'search_onestop_flight'],
      toolWeight: () => 1,
      wordWeight: idf,
    });
    expect(w.nameWords).toEqual(['check', 'flight', 'change']);
    // Never the lookup's verb (search, get) nor a word the name already has (flight).
    expect(w.qualifiers).toEqual([['onestop'], ['direct'], ['reservation']]);
  });

  it('names what a namespaced step acts on, even a word that says nothing in a request (add_customer)', () => {
    // WorkBench's CRM: "customer" is chat in a request ("the customer wants"), but it is all add_customer names.
    const w = wordSkill({
      goals: [
        'Add Taylor Kim as a new lead in the crm and assign them to Akira',
        'Can you add Sam Lee as a new lead in the crm and assign them to Nadia?',
        'Add Pat Jones as a new lead in the crm and assign them to Raj',
      ],
      cues: [],
      toolSequence: ['company_directory.find_email_address', 'customer_relationship_manager.add_customer'],
      toolWeight: () => 1,
      wordWeight: idf,
    });
    expect(w.nameWords).toEqual(['add', 'customer']);
    expect(w.description).toMatch(/^Add Customer: looks up email address, then adds customer/);
  });

  it('gives a verb its preposition in the description (replies to email)', () => {
    const w = wordSkill({
      goals: [
        "Reply to raj's last email about 'Budget' with 'Thanks'",
        "Reply to amir's last email about 'Plan' with 'Ok'",
      ],
      cues: [],
      toolSequence: ['email.search_emails', 'email.reply_email'],
      toolWeight: () => 1,
      wordWeight: idf,
    });
    expect(w.nameWords).toEqual(['reply', 'email']);
    expect(w.description).toContain('then replies to email');
    expect(w.description).toContain('Use when a user asks to reply to email.');
  });
});

describe('skill names from requests in other languages', () => {
  const backup = { toolSequence: ['run_shell', 'run_shell', 'run_shell'], wordWeight: () => 2, cues: [] };
  const commands = ['pg_dump', 'ls', 'aws s3'];

  it('names by the words the requests share, accents kept for the description, never by their function words', () => {
    const w = wordSkill({
      ...backup,
      commands,
      goals: [
        'Fais une sauvegarde de la base de données et envoie-la sur le bucket S3.',
        'Sauvegarde la base de données de la boutique avant la mise à jour, puis copie le fichier dans S3.',
        'Il me faut une copie de sécurité de la base de données, vérifie sa taille et dépose-la sur S3.',
      ],
    });
    // Was run-base-donn: words were cut at the first letter outside a-z.
    expect(w.nameWords).toEqual(['run', 'base', 'données']);
    expect(w.title).toBe('Run Base Données');
    const german = wordSkill({
      ...backup,
      commands,
      goals: [
        'Erstelle eine Sicherung der Shop-Datenbank und lade sie in den S3-Bucket hoch.',
        'Sichere bitte die Datenbank und leg die Sicherungsdatei zusätzlich in S3 ab.',
        'Mach eine Sicherung der Datenbank, prüfe die Größe der Datei und kopiere sie nach S3.',
      ],
    });
    // Was run-eine-und; a German noun's capital is no name's.
    expect(german.nameWords).toEqual(['run', 'sicherung', 'datenbank']);
  });

  it('names a procedure whose requests give no word it can use (Chinese, Russian) by the program it runs, not "run"', () => {
    const goals = [
      '请备份商店的数据库，并上传到S3。',
      '把数据库备份一下，然后把备份文件复制到S3存储桶。',
      '升级之前先做一次数据库备份。',
    ];
    expect(wordSkill({ ...backup, commands, goals }).nameWords).toEqual(['run', 'pg', 'dump']);
    // Without the commands known, a bare verb is what is left.
    expect(wordSkill({ ...backup, goals }).nameWords).toEqual(['run']);
    // A procedure whose tools name it keeps its tools' words, whatever language its requests are in.
    const cancel = wordSkill({
      goals: ['请帮我取消订单#W4821，我不需要了。', '我想把订单#W5530取消掉。', '麻烦取消我昨天下的订单。'],
      cues: [],
      toolSequence: ['get_order_details', 'cancel_pending_order'],
      wordWeight: () => 2,
    });
    expect(cancel.nameWords).toEqual(['cancel', 'pending', 'order']);
  });
});
